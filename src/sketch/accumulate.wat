;; The sign pass's hot loop, acc[j] += weight · vector[j] (signature.ts `accumulate`,
;; `accumulateInt32`), in SIMD, one function per kind of term vector and sum (accumulate-wasm.ts):
;;
;; - `acc`, float32 vectors, float64 sums: two float32 components are widened exactly to
;;   float64 (f64x2.promote_low_f32x4), multiplied by the splatted weight and added to two
;;   accumulators per instruction.
;; - `acc8`, int8 vectors, float64 sums (real weights, tf-idf): eight int8 components are
;;   sign-extended to i16x8 (v128.load8x8_s), then to two i32x4, each converted exactly to two
;;   f64x2 (f64x2.convert_low_i32x4_s, the upper pair first moved down by a shuffle).
;; - `acc8i`, int8 vectors, int32 sums (integer weights, tf): sixteen int8 components are
;;   sign-extended to four i32x4, multiplied by the splatted weight and added, wrapping as
;;   `accumulateInt32` does.
;; - `acc8x4`, `acc8` for four vectors at once: each pair of accumulators is loaded once, the
;;   four products are added in term order, ((acc + w0·v0) + w1·v1) + …, and it is stored once.
;;   The same operations as four `acc8` calls, for a quarter of their loads and stores of the
;;   8 KiB of sums and one call instead of four (measured on 300,000 vectors read at random:
;;   0.36 µs per vector against 0.50–0.60 µs).
;; - `acc8d4`, `acc8i` for four vectors at once with int16 weights (integer tf-idf in fixed
;;   point, tf): eight int8 components of each vector sign-extended to i16x8 (v128.load8x8_s),
;;   the i16 lanes of two vectors interleaved [a0 b0 a1 b1 a2 b2 a3 b3] (one unpack), and
;;   i32x4.dot_i16x8_s by [w0 w1 w0 w1 …] gives a0·w0 + b0·w1 … in four int32 lanes: one
;;   instruction for 8 products, where acc8i spends two extensions and a 32-bit multiply on 4.
;;   Products of int8 and int16 fit in int32 exactly, and int32 sums wrap like acc8i's, so the
;;   result is the same modulo 2^32 in any order.
;; - `acc8block`, a block of documents in one call, each a list of groups of eight (vector,
;;   int16 weight) added as `acc8d4` adds four, from zero or from int32 sums of its other terms,
;;   then signed (bit j is sum j > 0, as `signBits`): no call from JavaScript per four terms nor
;;   signing loop in JavaScript per document, and eight vectors read at once (their sums loaded
;;   and stored once per eight; 10 % less CPU than four at once, gen-100000). Summing the block a
;;   tile of components at a time, so that the tiles of its distinct vectors stay in the CPU
;;   cache, was slower (64 components: 2.3× the CPU, 256: 1.5×): a line per vector per tile
;;   costs a TLB miss each.
;;
;; Each float product and sum is one correctly rounded IEEE 754 double operation, in the same
;; order per component as the TypeScript loop (WebAssembly never fuses a multiply-add), and
;; integer arithmetic is exact modulo 2^32 in both, so the accumulators — hence the signature
;; bits — are identical to the TypeScript functions', which stay the reference.
;;
;; Memory (imported as e.m): the shared memory of sign-memory.ts, so that the kernels read
;; cached vectors where they lie. Arguments: a, the byte offset of the accumulators; v, of the
;; vector (v0 … v3 for acc8x4, acc8d4); n, the number of components, a positive multiple of 16;
;; w, the weight (w01, w23 for acc8d4: two int16 weights in one i32, the first in the low half).
;; acc8block: l, the byte offset of the block: per document (docs ≥ 1 of them) three i32, its
;; number of groups, the byte offset of the int32 sums it starts from (n of them) or 0 for zero
;; sums, of its signature (n/32 words), then its groups, each eight pairs of i32 (a vector's
;; offset, its int16 weight; any vector with weight 0 adds nothing); a, n int32 of scratch.
(module
  (import "e" "m" (memory 1 65536 shared))

  (func (export "acc") (param $a i32) (param $v i32) (param $n i32) (param $w f64)
    (local $end i32) (local $ws v128)
    (local.set $ws (f64x2.splat (local.get $w)))
    (local.set $end (i32.add (local.get $a) (i32.mul (local.get $n) (i32.const 8))))
    ;; Per step: 4 float32 components, 4 float64 accumulators.
    (loop $components
      (v128.store offset=0 (local.get $a)
        (f64x2.add (v128.load offset=0 (local.get $a))
          (f64x2.mul (f64x2.promote_low_f32x4 (v128.load64_zero offset=0 (local.get $v))) (local.get $ws))))
      (v128.store offset=16 (local.get $a)
        (f64x2.add (v128.load offset=16 (local.get $a))
          (f64x2.mul (f64x2.promote_low_f32x4 (v128.load64_zero offset=8 (local.get $v))) (local.get $ws))))
      (local.set $a (i32.add (local.get $a) (i32.const 32)))
      (local.set $v (i32.add (local.get $v) (i32.const 16)))
      (br_if $components (i32.lt_u (local.get $a) (local.get $end)))))

  (func (export "acc8") (param $a i32) (param $v i32) (param $n i32) (param $w f64)
    (local $end i32) (local $ws v128) (local $x v128) (local $q v128)
    (local.set $ws (f64x2.splat (local.get $w)))
    (local.set $end (i32.add (local.get $a) (i32.mul (local.get $n) (i32.const 8))))
    ;; Per step: 16 int8 components (two halves x of 8, each two quads q), 16 float64 accumulators.
    (loop $components
      (local.set $x (v128.load8x8_s offset=0 (local.get $v)))
      (local.set $q (i32x4.extend_low_i16x8_s (local.get $x)))
      (v128.store offset=0 (local.get $a)
        (f64x2.add (v128.load offset=0 (local.get $a))
          (f64x2.mul (f64x2.convert_low_i32x4_s (local.get $q)) (local.get $ws))))
      (v128.store offset=16 (local.get $a)
        (f64x2.add (v128.load offset=16 (local.get $a))
          (f64x2.mul (f64x2.convert_low_i32x4_s
            (i8x16.shuffle 8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7 (local.get $q) (local.get $q))) (local.get $ws))))
      (local.set $q (i32x4.extend_high_i16x8_s (local.get $x)))
      (v128.store offset=32 (local.get $a)
        (f64x2.add (v128.load offset=32 (local.get $a))
          (f64x2.mul (f64x2.convert_low_i32x4_s (local.get $q)) (local.get $ws))))
      (v128.store offset=48 (local.get $a)
        (f64x2.add (v128.load offset=48 (local.get $a))
          (f64x2.mul (f64x2.convert_low_i32x4_s
            (i8x16.shuffle 8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7 (local.get $q) (local.get $q))) (local.get $ws))))
      (local.set $x (v128.load8x8_s offset=8 (local.get $v)))
      (local.set $q (i32x4.extend_low_i16x8_s (local.get $x)))
      (v128.store offset=64 (local.get $a)
        (f64x2.add (v128.load offset=64 (local.get $a))
          (f64x2.mul (f64x2.convert_low_i32x4_s (local.get $q)) (local.get $ws))))
      (v128.store offset=80 (local.get $a)
        (f64x2.add (v128.load offset=80 (local.get $a))
          (f64x2.mul (f64x2.convert_low_i32x4_s
            (i8x16.shuffle 8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7 (local.get $q) (local.get $q))) (local.get $ws))))
      (local.set $q (i32x4.extend_high_i16x8_s (local.get $x)))
      (v128.store offset=96 (local.get $a)
        (f64x2.add (v128.load offset=96 (local.get $a))
          (f64x2.mul (f64x2.convert_low_i32x4_s (local.get $q)) (local.get $ws))))
      (v128.store offset=112 (local.get $a)
        (f64x2.add (v128.load offset=112 (local.get $a))
          (f64x2.mul (f64x2.convert_low_i32x4_s
            (i8x16.shuffle 8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7 (local.get $q) (local.get $q))) (local.get $ws))))
      (local.set $a (i32.add (local.get $a) (i32.const 128)))
      (local.set $v (i32.add (local.get $v) (i32.const 16)))
      (br_if $components (i32.lt_u (local.get $a) (local.get $end)))))

  (func (export "acc8i") (param $a i32) (param $v i32) (param $n i32) (param $w i32)
    (local $end i32) (local $ws v128) (local $x v128) (local $q v128)
    (local.set $ws (i32x4.splat (local.get $w)))
    (local.set $end (i32.add (local.get $a) (i32.mul (local.get $n) (i32.const 4))))
    ;; Per step: 16 int8 components (x, two halves q of 8), 16 int32 accumulators.
    (loop $components
      (local.set $x (v128.load (local.get $v)))
      (local.set $q (i16x8.extend_low_i8x16_s (local.get $x)))
      (v128.store offset=0 (local.get $a)
        (i32x4.add (v128.load offset=0 (local.get $a))
          (i32x4.mul (i32x4.extend_low_i16x8_s (local.get $q)) (local.get $ws))))
      (v128.store offset=16 (local.get $a)
        (i32x4.add (v128.load offset=16 (local.get $a))
          (i32x4.mul (i32x4.extend_high_i16x8_s (local.get $q)) (local.get $ws))))
      (local.set $q (i16x8.extend_high_i8x16_s (local.get $x)))
      (v128.store offset=32 (local.get $a)
        (i32x4.add (v128.load offset=32 (local.get $a))
          (i32x4.mul (i32x4.extend_low_i16x8_s (local.get $q)) (local.get $ws))))
      (v128.store offset=48 (local.get $a)
        (i32x4.add (v128.load offset=48 (local.get $a))
          (i32x4.mul (i32x4.extend_high_i16x8_s (local.get $q)) (local.get $ws))))
      (local.set $a (i32.add (local.get $a) (i32.const 64)))
      (local.set $v (i32.add (local.get $v) (i32.const 16)))
      (br_if $components (i32.lt_u (local.get $a) (local.get $end)))))

  (func (export "acc8x4") (param $a i32) (param $v0 i32) (param $v1 i32) (param $v2 i32) (param $v3 i32) (param $n i32)
    (param $w0 f64) (param $w1 f64) (param $w2 f64) (param $w3 f64)
    (local $end i32) (local $o i32)
    (local $ws0 v128) (local $x0 v128) (local $lo0 v128) (local $hi0 v128)
    (local $ws1 v128) (local $x1 v128) (local $lo1 v128) (local $hi1 v128)
    (local $ws2 v128) (local $x2 v128) (local $lo2 v128) (local $hi2 v128)
    (local $ws3 v128) (local $x3 v128) (local $lo3 v128) (local $hi3 v128)
    (local.set $ws0 (f64x2.splat (local.get $w0)))
    (local.set $ws1 (f64x2.splat (local.get $w1)))
    (local.set $ws2 (f64x2.splat (local.get $w2)))
    (local.set $ws3 (f64x2.splat (local.get $w3)))
    (local.set $end (i32.add (local.get $a) (i32.mul (local.get $n) (i32.const 8))))
    ;; Per step: 16 components of each vector (two halves of 8: x → quads lo, hi), 16 float64 accumulators,
    ;; each loaded once, the four products added in term order, stored once.
    (loop $components
      (local.set $x0 (v128.load8x8_s offset=0 (i32.add (local.get $v0) (local.get $o))))
      (local.set $lo0 (i32x4.extend_low_i16x8_s (local.get $x0)))
      (local.set $hi0 (i32x4.extend_high_i16x8_s (local.get $x0)))
      (local.set $x1 (v128.load8x8_s offset=0 (i32.add (local.get $v1) (local.get $o))))
      (local.set $lo1 (i32x4.extend_low_i16x8_s (local.get $x1)))
      (local.set $hi1 (i32x4.extend_high_i16x8_s (local.get $x1)))
      (local.set $x2 (v128.load8x8_s offset=0 (i32.add (local.get $v2) (local.get $o))))
      (local.set $lo2 (i32x4.extend_low_i16x8_s (local.get $x2)))
      (local.set $hi2 (i32x4.extend_high_i16x8_s (local.get $x2)))
      (local.set $x3 (v128.load8x8_s offset=0 (i32.add (local.get $v3) (local.get $o))))
      (local.set $lo3 (i32x4.extend_low_i16x8_s (local.get $x3)))
      (local.set $hi3 (i32x4.extend_high_i16x8_s (local.get $x3)))
      (v128.store offset=0 (local.get $a)
        (f64x2.add (f64x2.add (f64x2.add (f64x2.add (v128.load offset=0 (local.get $a))
          (f64x2.mul (f64x2.convert_low_i32x4_s (local.get $lo0)) (local.get $ws0)))
          (f64x2.mul (f64x2.convert_low_i32x4_s (local.get $lo1)) (local.get $ws1)))
          (f64x2.mul (f64x2.convert_low_i32x4_s (local.get $lo2)) (local.get $ws2)))
          (f64x2.mul (f64x2.convert_low_i32x4_s (local.get $lo3)) (local.get $ws3))))
      (v128.store offset=16 (local.get $a)
        (f64x2.add (f64x2.add (f64x2.add (f64x2.add (v128.load offset=16 (local.get $a))
          (f64x2.mul (f64x2.convert_low_i32x4_s (i8x16.shuffle 8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7 (local.get $lo0) (local.get $lo0))) (local.get $ws0)))
          (f64x2.mul (f64x2.convert_low_i32x4_s (i8x16.shuffle 8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7 (local.get $lo1) (local.get $lo1))) (local.get $ws1)))
          (f64x2.mul (f64x2.convert_low_i32x4_s (i8x16.shuffle 8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7 (local.get $lo2) (local.get $lo2))) (local.get $ws2)))
          (f64x2.mul (f64x2.convert_low_i32x4_s (i8x16.shuffle 8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7 (local.get $lo3) (local.get $lo3))) (local.get $ws3))))
      (v128.store offset=32 (local.get $a)
        (f64x2.add (f64x2.add (f64x2.add (f64x2.add (v128.load offset=32 (local.get $a))
          (f64x2.mul (f64x2.convert_low_i32x4_s (local.get $hi0)) (local.get $ws0)))
          (f64x2.mul (f64x2.convert_low_i32x4_s (local.get $hi1)) (local.get $ws1)))
          (f64x2.mul (f64x2.convert_low_i32x4_s (local.get $hi2)) (local.get $ws2)))
          (f64x2.mul (f64x2.convert_low_i32x4_s (local.get $hi3)) (local.get $ws3))))
      (v128.store offset=48 (local.get $a)
        (f64x2.add (f64x2.add (f64x2.add (f64x2.add (v128.load offset=48 (local.get $a))
          (f64x2.mul (f64x2.convert_low_i32x4_s (i8x16.shuffle 8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7 (local.get $hi0) (local.get $hi0))) (local.get $ws0)))
          (f64x2.mul (f64x2.convert_low_i32x4_s (i8x16.shuffle 8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7 (local.get $hi1) (local.get $hi1))) (local.get $ws1)))
          (f64x2.mul (f64x2.convert_low_i32x4_s (i8x16.shuffle 8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7 (local.get $hi2) (local.get $hi2))) (local.get $ws2)))
          (f64x2.mul (f64x2.convert_low_i32x4_s (i8x16.shuffle 8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7 (local.get $hi3) (local.get $hi3))) (local.get $ws3))))

      (local.set $x0 (v128.load8x8_s offset=8 (i32.add (local.get $v0) (local.get $o))))
      (local.set $lo0 (i32x4.extend_low_i16x8_s (local.get $x0)))
      (local.set $hi0 (i32x4.extend_high_i16x8_s (local.get $x0)))
      (local.set $x1 (v128.load8x8_s offset=8 (i32.add (local.get $v1) (local.get $o))))
      (local.set $lo1 (i32x4.extend_low_i16x8_s (local.get $x1)))
      (local.set $hi1 (i32x4.extend_high_i16x8_s (local.get $x1)))
      (local.set $x2 (v128.load8x8_s offset=8 (i32.add (local.get $v2) (local.get $o))))
      (local.set $lo2 (i32x4.extend_low_i16x8_s (local.get $x2)))
      (local.set $hi2 (i32x4.extend_high_i16x8_s (local.get $x2)))
      (local.set $x3 (v128.load8x8_s offset=8 (i32.add (local.get $v3) (local.get $o))))
      (local.set $lo3 (i32x4.extend_low_i16x8_s (local.get $x3)))
      (local.set $hi3 (i32x4.extend_high_i16x8_s (local.get $x3)))
      (v128.store offset=64 (local.get $a)
        (f64x2.add (f64x2.add (f64x2.add (f64x2.add (v128.load offset=64 (local.get $a))
          (f64x2.mul (f64x2.convert_low_i32x4_s (local.get $lo0)) (local.get $ws0)))
          (f64x2.mul (f64x2.convert_low_i32x4_s (local.get $lo1)) (local.get $ws1)))
          (f64x2.mul (f64x2.convert_low_i32x4_s (local.get $lo2)) (local.get $ws2)))
          (f64x2.mul (f64x2.convert_low_i32x4_s (local.get $lo3)) (local.get $ws3))))
      (v128.store offset=80 (local.get $a)
        (f64x2.add (f64x2.add (f64x2.add (f64x2.add (v128.load offset=80 (local.get $a))
          (f64x2.mul (f64x2.convert_low_i32x4_s (i8x16.shuffle 8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7 (local.get $lo0) (local.get $lo0))) (local.get $ws0)))
          (f64x2.mul (f64x2.convert_low_i32x4_s (i8x16.shuffle 8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7 (local.get $lo1) (local.get $lo1))) (local.get $ws1)))
          (f64x2.mul (f64x2.convert_low_i32x4_s (i8x16.shuffle 8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7 (local.get $lo2) (local.get $lo2))) (local.get $ws2)))
          (f64x2.mul (f64x2.convert_low_i32x4_s (i8x16.shuffle 8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7 (local.get $lo3) (local.get $lo3))) (local.get $ws3))))
      (v128.store offset=96 (local.get $a)
        (f64x2.add (f64x2.add (f64x2.add (f64x2.add (v128.load offset=96 (local.get $a))
          (f64x2.mul (f64x2.convert_low_i32x4_s (local.get $hi0)) (local.get $ws0)))
          (f64x2.mul (f64x2.convert_low_i32x4_s (local.get $hi1)) (local.get $ws1)))
          (f64x2.mul (f64x2.convert_low_i32x4_s (local.get $hi2)) (local.get $ws2)))
          (f64x2.mul (f64x2.convert_low_i32x4_s (local.get $hi3)) (local.get $ws3))))
      (v128.store offset=112 (local.get $a)
        (f64x2.add (f64x2.add (f64x2.add (f64x2.add (v128.load offset=112 (local.get $a))
          (f64x2.mul (f64x2.convert_low_i32x4_s (i8x16.shuffle 8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7 (local.get $hi0) (local.get $hi0))) (local.get $ws0)))
          (f64x2.mul (f64x2.convert_low_i32x4_s (i8x16.shuffle 8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7 (local.get $hi1) (local.get $hi1))) (local.get $ws1)))
          (f64x2.mul (f64x2.convert_low_i32x4_s (i8x16.shuffle 8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7 (local.get $hi2) (local.get $hi2))) (local.get $ws2)))
          (f64x2.mul (f64x2.convert_low_i32x4_s (i8x16.shuffle 8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7 (local.get $hi3) (local.get $hi3))) (local.get $ws3))))
      (local.set $a (i32.add (local.get $a) (i32.const 128)))
      (local.set $o (i32.add (local.get $o) (i32.const 16)))
      (br_if $components (i32.lt_u (local.get $a) (local.get $end)))))

  (func (export "acc8d4") (param $a i32) (param $v0 i32) (param $v1 i32) (param $v2 i32) (param $v3 i32) (param $n i32)
    (param $w01 i32) (param $w23 i32)
    (local $end i32) (local $o i32) (local $ws01 v128) (local $ws23 v128)
    (local $x0 v128) (local $x1 v128) (local $x2 v128) (local $x3 v128)
    ;; The splat of a packed pair: i16 lanes [w0 w1 w0 w1 …].
    (local.set $ws01 (i32x4.splat (local.get $w01)))
    (local.set $ws23 (i32x4.splat (local.get $w23)))
    (local.set $end (i32.add (local.get $a) (i32.mul (local.get $n) (i32.const 4))))
    ;; Per step: 16 components of each vector (two halves x of 8, i16x8), 16 int32 accumulators.
    (loop $components
      (local.set $x0 (v128.load8x8_s offset=0 (i32.add (local.get $v0) (local.get $o))))
      (local.set $x1 (v128.load8x8_s offset=0 (i32.add (local.get $v1) (local.get $o))))
      (local.set $x2 (v128.load8x8_s offset=0 (i32.add (local.get $v2) (local.get $o))))
      (local.set $x3 (v128.load8x8_s offset=0 (i32.add (local.get $v3) (local.get $o))))
      (v128.store offset=0 (local.get $a)
        (i32x4.add (v128.load offset=0 (local.get $a))
          (i32x4.add
            (i32x4.dot_i16x8_s (i8x16.shuffle 0 1 16 17 2 3 18 19 4 5 20 21 6 7 22 23 (local.get $x0) (local.get $x1)) (local.get $ws01))
            (i32x4.dot_i16x8_s (i8x16.shuffle 0 1 16 17 2 3 18 19 4 5 20 21 6 7 22 23 (local.get $x2) (local.get $x3)) (local.get $ws23)))))
      (v128.store offset=16 (local.get $a)
        (i32x4.add (v128.load offset=16 (local.get $a))
          (i32x4.add
            (i32x4.dot_i16x8_s (i8x16.shuffle 8 9 24 25 10 11 26 27 12 13 28 29 14 15 30 31 (local.get $x0) (local.get $x1)) (local.get $ws01))
            (i32x4.dot_i16x8_s (i8x16.shuffle 8 9 24 25 10 11 26 27 12 13 28 29 14 15 30 31 (local.get $x2) (local.get $x3)) (local.get $ws23)))))
      (local.set $x0 (v128.load8x8_s offset=8 (i32.add (local.get $v0) (local.get $o))))
      (local.set $x1 (v128.load8x8_s offset=8 (i32.add (local.get $v1) (local.get $o))))
      (local.set $x2 (v128.load8x8_s offset=8 (i32.add (local.get $v2) (local.get $o))))
      (local.set $x3 (v128.load8x8_s offset=8 (i32.add (local.get $v3) (local.get $o))))
      (v128.store offset=32 (local.get $a)
        (i32x4.add (v128.load offset=32 (local.get $a))
          (i32x4.add
            (i32x4.dot_i16x8_s (i8x16.shuffle 0 1 16 17 2 3 18 19 4 5 20 21 6 7 22 23 (local.get $x0) (local.get $x1)) (local.get $ws01))
            (i32x4.dot_i16x8_s (i8x16.shuffle 0 1 16 17 2 3 18 19 4 5 20 21 6 7 22 23 (local.get $x2) (local.get $x3)) (local.get $ws23)))))
      (v128.store offset=48 (local.get $a)
        (i32x4.add (v128.load offset=48 (local.get $a))
          (i32x4.add
            (i32x4.dot_i16x8_s (i8x16.shuffle 8 9 24 25 10 11 26 27 12 13 28 29 14 15 30 31 (local.get $x0) (local.get $x1)) (local.get $ws01))
            (i32x4.dot_i16x8_s (i8x16.shuffle 8 9 24 25 10 11 26 27 12 13 28 29 14 15 30 31 (local.get $x2) (local.get $x3)) (local.get $ws23)))))
      (local.set $a (i32.add (local.get $a) (i32.const 64)))
      (local.set $o (i32.add (local.get $o) (i32.const 16)))
      (br_if $components (i32.lt_u (local.get $a) (local.get $end)))))

  (func (export "acc8block") (param $l i32) (param $docs i32) (param $n i32) (param $a i32)
    (local $p i32) (local $g i32) (local $e i32) (local $s i32) (local $q i32) (local $end i32)
    (local $v0 i32) (local $v1 i32) (local $v2 i32) (local $v3 i32) (local $v4 i32) (local $v5 i32) (local $v6 i32) (local $v7 i32)
    (local $ws01 v128) (local $ws23 v128) (local $ws45 v128) (local $ws67 v128)
    (local $x0 v128) (local $x1 v128) (local $x2 v128) (local $x3 v128) (local $x4 v128) (local $x5 v128) (local $x6 v128) (local $x7 v128)
    (local.set $end (i32.add (local.get $a) (i32.mul (local.get $n) (i32.const 4))))
    (local.set $p (local.get $l))
    (loop $documents
      (local.set $g (i32.load offset=0 (local.get $p)))
      (local.set $e (i32.load offset=4 (local.get $p)))
      (local.set $s (i32.load offset=8 (local.get $p)))
      (local.set $p (i32.add (local.get $p) (i32.const 12)))
      ;; The sums start from the document's other terms' sums, or 0.
      (local.set $q (local.get $a))
      (if (local.get $e)
        (then
          (loop $copy
            (v128.store (local.get $q) (v128.load (local.get $e)))
            (local.set $e (i32.add (local.get $e) (i32.const 16)))
            (local.set $q (i32.add (local.get $q) (i32.const 16)))
            (br_if $copy (i32.lt_u (local.get $q) (local.get $end)))))
        (else
          (loop $zero
            (v128.store (local.get $q) (v128.const i32x4 0 0 0 0))
            (local.set $q (i32.add (local.get $q) (i32.const 16)))
            (br_if $zero (i32.lt_u (local.get $q) (local.get $end))))))
      (block $summed
        (loop $groups
          (br_if $summed (i32.eqz (local.get $g)))
          (local.set $v0 (i32.load offset=0 (local.get $p)))
          (local.set $v1 (i32.load offset=8 (local.get $p)))
          (local.set $v2 (i32.load offset=16 (local.get $p)))
          (local.set $v3 (i32.load offset=24 (local.get $p)))
          (local.set $v4 (i32.load offset=32 (local.get $p)))
          (local.set $v5 (i32.load offset=40 (local.get $p)))
          (local.set $v6 (i32.load offset=48 (local.get $p)))
          (local.set $v7 (i32.load offset=56 (local.get $p)))
          ;; The splats of the packed pairs: i16 lanes [w0 w1 w0 w1 …].
          (local.set $ws01 (i32x4.splat (i32.or (i32.and (i32.load offset=4 (local.get $p)) (i32.const 0xffff))
            (i32.shl (i32.load offset=12 (local.get $p)) (i32.const 16)))))
          (local.set $ws23 (i32x4.splat (i32.or (i32.and (i32.load offset=20 (local.get $p)) (i32.const 0xffff))
            (i32.shl (i32.load offset=28 (local.get $p)) (i32.const 16)))))
          (local.set $ws45 (i32x4.splat (i32.or (i32.and (i32.load offset=36 (local.get $p)) (i32.const 0xffff))
            (i32.shl (i32.load offset=44 (local.get $p)) (i32.const 16)))))
          (local.set $ws67 (i32x4.splat (i32.or (i32.and (i32.load offset=52 (local.get $p)) (i32.const 0xffff))
            (i32.shl (i32.load offset=60 (local.get $p)) (i32.const 16)))))
          ;; Per step: 16 components of each vector (two halves x of 8, i16x8), 16 int32 sums at q.
          (local.set $q (local.get $a))
          (loop $components
            (local.set $x0 (v128.load8x8_s offset=0 (local.get $v0)))
            (local.set $x1 (v128.load8x8_s offset=0 (local.get $v1)))
            (local.set $x2 (v128.load8x8_s offset=0 (local.get $v2)))
            (local.set $x3 (v128.load8x8_s offset=0 (local.get $v3)))
            (local.set $x4 (v128.load8x8_s offset=0 (local.get $v4)))
            (local.set $x5 (v128.load8x8_s offset=0 (local.get $v5)))
            (local.set $x6 (v128.load8x8_s offset=0 (local.get $v6)))
            (local.set $x7 (v128.load8x8_s offset=0 (local.get $v7)))
            (v128.store offset=0 (local.get $q)
              (i32x4.add (v128.load offset=0 (local.get $q))
                (i32x4.add (i32x4.add
                  (i32x4.dot_i16x8_s (i8x16.shuffle 0 1 16 17 2 3 18 19 4 5 20 21 6 7 22 23 (local.get $x0) (local.get $x1)) (local.get $ws01))
                  (i32x4.dot_i16x8_s (i8x16.shuffle 0 1 16 17 2 3 18 19 4 5 20 21 6 7 22 23 (local.get $x2) (local.get $x3)) (local.get $ws23)))
                (i32x4.add
                  (i32x4.dot_i16x8_s (i8x16.shuffle 0 1 16 17 2 3 18 19 4 5 20 21 6 7 22 23 (local.get $x4) (local.get $x5)) (local.get $ws45))
                  (i32x4.dot_i16x8_s (i8x16.shuffle 0 1 16 17 2 3 18 19 4 5 20 21 6 7 22 23 (local.get $x6) (local.get $x7)) (local.get $ws67))))))
            (v128.store offset=16 (local.get $q)
              (i32x4.add (v128.load offset=16 (local.get $q))
                (i32x4.add (i32x4.add
                  (i32x4.dot_i16x8_s (i8x16.shuffle 8 9 24 25 10 11 26 27 12 13 28 29 14 15 30 31 (local.get $x0) (local.get $x1)) (local.get $ws01))
                  (i32x4.dot_i16x8_s (i8x16.shuffle 8 9 24 25 10 11 26 27 12 13 28 29 14 15 30 31 (local.get $x2) (local.get $x3)) (local.get $ws23)))
                (i32x4.add
                  (i32x4.dot_i16x8_s (i8x16.shuffle 8 9 24 25 10 11 26 27 12 13 28 29 14 15 30 31 (local.get $x4) (local.get $x5)) (local.get $ws45))
                  (i32x4.dot_i16x8_s (i8x16.shuffle 8 9 24 25 10 11 26 27 12 13 28 29 14 15 30 31 (local.get $x6) (local.get $x7)) (local.get $ws67))))))
            (local.set $x0 (v128.load8x8_s offset=8 (local.get $v0)))
            (local.set $x1 (v128.load8x8_s offset=8 (local.get $v1)))
            (local.set $x2 (v128.load8x8_s offset=8 (local.get $v2)))
            (local.set $x3 (v128.load8x8_s offset=8 (local.get $v3)))
            (local.set $x4 (v128.load8x8_s offset=8 (local.get $v4)))
            (local.set $x5 (v128.load8x8_s offset=8 (local.get $v5)))
            (local.set $x6 (v128.load8x8_s offset=8 (local.get $v6)))
            (local.set $x7 (v128.load8x8_s offset=8 (local.get $v7)))
            (v128.store offset=32 (local.get $q)
              (i32x4.add (v128.load offset=32 (local.get $q))
                (i32x4.add (i32x4.add
                  (i32x4.dot_i16x8_s (i8x16.shuffle 0 1 16 17 2 3 18 19 4 5 20 21 6 7 22 23 (local.get $x0) (local.get $x1)) (local.get $ws01))
                  (i32x4.dot_i16x8_s (i8x16.shuffle 0 1 16 17 2 3 18 19 4 5 20 21 6 7 22 23 (local.get $x2) (local.get $x3)) (local.get $ws23)))
                (i32x4.add
                  (i32x4.dot_i16x8_s (i8x16.shuffle 0 1 16 17 2 3 18 19 4 5 20 21 6 7 22 23 (local.get $x4) (local.get $x5)) (local.get $ws45))
                  (i32x4.dot_i16x8_s (i8x16.shuffle 0 1 16 17 2 3 18 19 4 5 20 21 6 7 22 23 (local.get $x6) (local.get $x7)) (local.get $ws67))))))
            (v128.store offset=48 (local.get $q)
              (i32x4.add (v128.load offset=48 (local.get $q))
                (i32x4.add (i32x4.add
                  (i32x4.dot_i16x8_s (i8x16.shuffle 8 9 24 25 10 11 26 27 12 13 28 29 14 15 30 31 (local.get $x0) (local.get $x1)) (local.get $ws01))
                  (i32x4.dot_i16x8_s (i8x16.shuffle 8 9 24 25 10 11 26 27 12 13 28 29 14 15 30 31 (local.get $x2) (local.get $x3)) (local.get $ws23)))
                (i32x4.add
                  (i32x4.dot_i16x8_s (i8x16.shuffle 8 9 24 25 10 11 26 27 12 13 28 29 14 15 30 31 (local.get $x4) (local.get $x5)) (local.get $ws45))
                  (i32x4.dot_i16x8_s (i8x16.shuffle 8 9 24 25 10 11 26 27 12 13 28 29 14 15 30 31 (local.get $x6) (local.get $x7)) (local.get $ws67))))))
            (local.set $v0 (i32.add (local.get $v0) (i32.const 16)))
            (local.set $v1 (i32.add (local.get $v1) (i32.const 16)))
            (local.set $v2 (i32.add (local.get $v2) (i32.const 16)))
            (local.set $v3 (i32.add (local.get $v3) (i32.const 16)))
            (local.set $v4 (i32.add (local.get $v4) (i32.const 16)))
            (local.set $v5 (i32.add (local.get $v5) (i32.const 16)))
            (local.set $v6 (i32.add (local.get $v6) (i32.const 16)))
            (local.set $v7 (i32.add (local.get $v7) (i32.const 16)))
            (local.set $q (i32.add (local.get $q) (i32.const 64)))
            (br_if $components (i32.lt_u (local.get $q) (local.get $end))))
          (local.set $p (i32.add (local.get $p) (i32.const 64)))
          (local.set $g (i32.sub (local.get $g) (i32.const 1)))
          (br $groups)))
      ;; The signature words: bit b of word w is sum 32w + b > 0 (bitmask: lane i → bit i).
      (local.set $q (local.get $a))
      (loop $words
        (i32.store (local.get $s)
          (i32.or (i32.or (i32.or (i32x4.bitmask (i32x4.gt_s (v128.load offset=0 (local.get $q)) (v128.const i32x4 0 0 0 0)))
                                  (i32.shl (i32x4.bitmask (i32x4.gt_s (v128.load offset=16 (local.get $q)) (v128.const i32x4 0 0 0 0))) (i32.const 4)))
                          (i32.or (i32.shl (i32x4.bitmask (i32x4.gt_s (v128.load offset=32 (local.get $q)) (v128.const i32x4 0 0 0 0))) (i32.const 8))
                                  (i32.shl (i32x4.bitmask (i32x4.gt_s (v128.load offset=48 (local.get $q)) (v128.const i32x4 0 0 0 0))) (i32.const 12))))
                  (i32.or (i32.or (i32.shl (i32x4.bitmask (i32x4.gt_s (v128.load offset=64 (local.get $q)) (v128.const i32x4 0 0 0 0))) (i32.const 16))
                                  (i32.shl (i32x4.bitmask (i32x4.gt_s (v128.load offset=80 (local.get $q)) (v128.const i32x4 0 0 0 0))) (i32.const 20)))
                          (i32.or (i32.shl (i32x4.bitmask (i32x4.gt_s (v128.load offset=96 (local.get $q)) (v128.const i32x4 0 0 0 0))) (i32.const 24))
                                  (i32.shl (i32x4.bitmask (i32x4.gt_s (v128.load offset=112 (local.get $q)) (v128.const i32x4 0 0 0 0))) (i32.const 28))))))
        (local.set $s (i32.add (local.get $s) (i32.const 4)))
        (local.set $q (i32.add (local.get $q) (i32.const 128)))
        (br_if $words (i32.lt_u (local.get $q) (local.get $end))))
      (local.set $docs (i32.sub (local.get $docs) (i32.const 1)))
      (br_if $documents (local.get $docs))))
)
