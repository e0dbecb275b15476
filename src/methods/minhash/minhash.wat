;; `minhashSignature`'s loop in SIMD (minhash-wasm.ts): four permutations per i32x4
;; instruction, min_s(a·x + b) over the set with wrapping 32-bit arithmetic — the integers of
;; the TypeScript reference (Math.imul, | 0, signed comparison), so the signatures are
;; identical. Sixteen permutations at a time keep their a, b and running minima in twelve
;; v128 locals while the set's values stream past. count must be a positive multiple of 16.
;;
;; Memory (imported as e.m): a at [0, 4·count), b at [4·count, 8·count), the signature at
;; [8·count, 12·count), the set's n values (their low 32 bits) from 12·count.
(module
  (import "e" "m" (memory 1))
  (func (export "minhash") (param $count i32) (param $n i32)
    (local $blk i32) (local $p i32) (local $end i32) (local $bBase i32) (local $oBase i32)
    (local $x v128)
    (local $a0 v128) (local $a1 v128) (local $a2 v128) (local $a3 v128)
    (local $b0 v128) (local $b1 v128) (local $b2 v128) (local $b3 v128)
    (local $m0 v128) (local $m1 v128) (local $m2 v128) (local $m3 v128)
    (local.set $bBase (i32.mul (local.get $count) (i32.const 4)))
    (local.set $oBase (i32.mul (local.get $count) (i32.const 8)))
    (local.set $end (i32.add (i32.mul (local.get $count) (i32.const 12)) (i32.mul (local.get $n) (i32.const 4))))
    ;; blk: byte offset of the block of sixteen permutations
    (loop $blocks
      (local.set $a0 (v128.load offset=0 (local.get $blk)))
      (local.set $a1 (v128.load offset=16 (local.get $blk)))
      (local.set $a2 (v128.load offset=32 (local.get $blk)))
      (local.set $a3 (v128.load offset=48 (local.get $blk)))
      (local.set $b0 (v128.load offset=0 (i32.add (local.get $blk) (local.get $bBase))))
      (local.set $b1 (v128.load offset=16 (i32.add (local.get $blk) (local.get $bBase))))
      (local.set $b2 (v128.load offset=32 (i32.add (local.get $blk) (local.get $bBase))))
      (local.set $b3 (v128.load offset=48 (i32.add (local.get $blk) (local.get $bBase))))
      (local.set $m0 (i32x4.splat (i32.const 0x7fffffff)))
      (local.set $m1 (i32x4.splat (i32.const 0x7fffffff)))
      (local.set $m2 (i32x4.splat (i32.const 0x7fffffff)))
      (local.set $m3 (i32x4.splat (i32.const 0x7fffffff)))
      (local.set $p (i32.mul (local.get $count) (i32.const 12)))
      (block $setDone
        (br_if $setDone (i32.ge_u (local.get $p) (local.get $end)))
        (loop $values
          (local.set $x (v128.load32_splat (local.get $p)))
          (local.set $m0 (i32x4.min_s (local.get $m0) (i32x4.add (i32x4.mul (local.get $a0) (local.get $x)) (local.get $b0))))
          (local.set $m1 (i32x4.min_s (local.get $m1) (i32x4.add (i32x4.mul (local.get $a1) (local.get $x)) (local.get $b1))))
          (local.set $m2 (i32x4.min_s (local.get $m2) (i32x4.add (i32x4.mul (local.get $a2) (local.get $x)) (local.get $b2))))
          (local.set $m3 (i32x4.min_s (local.get $m3) (i32x4.add (i32x4.mul (local.get $a3) (local.get $x)) (local.get $b3))))
          (br_if $values (i32.lt_u
            (local.tee $p (i32.add (local.get $p) (i32.const 4)))
            (local.get $end)))))
      (v128.store offset=0 (i32.add (local.get $blk) (local.get $oBase)) (local.get $m0))
      (v128.store offset=16 (i32.add (local.get $blk) (local.get $oBase)) (local.get $m1))
      (v128.store offset=32 (i32.add (local.get $blk) (local.get $oBase)) (local.get $m2))
      (v128.store offset=48 (i32.add (local.get $blk) (local.get $oBase)) (local.get $m3))
      (br_if $blocks (i32.lt_u
        (local.tee $blk (i32.add (local.get $blk) (i32.const 64)))
        (local.get $bBase))))))
