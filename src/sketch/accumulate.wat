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
;;
;; Each float product and sum is one correctly rounded IEEE 754 double operation, in the same
;; order per component as the TypeScript loop (WebAssembly never fuses a multiply-add), and
;; integer arithmetic is exact modulo 2^32 in both, so the accumulators — hence the signature
;; bits — are identical to the TypeScript functions', which stay the reference.
;;
;; Memory (imported as e.m): the shared memory of sign-memory.ts, so that the kernels read
;; cached vectors where they lie. Arguments: a, the byte offset of the accumulators; v, of the
;; vector; n, the number of components, a positive multiple of 16; w, the weight.
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
      (br_if $components (i32.lt_u (local.get $a) (local.get $end))))))
