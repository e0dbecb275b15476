;; Draws int8 term-vector components (int8-draw.ts): four interleaved sfc32 streams in the
;; lanes of an i32x4, component j from lane j mod 4, each output u mapped to its quantised
;; Gaussian q by the inverse-CDF tables of Int8Draw. Bit-identical to int8-draw.ts drawLanes.
;;
;; Memory (imported as e.m, filled by int8-draw.ts):
;;   0        Int16[65536]  buckets: q of u's top 16 bits, or q + 512 when the bucket straddles a cut
;;   131072   Uint32[254]   thresholds: the cuts between q and q + 1, ascending
;;   132096   i32x4 a, b, c, d: the lanes' sfc32 state before the warm-up
;;   132160   out: the components, n rounded up to a multiple of 4
(module
  (import "e" "m" (memory 1))

  ;; q of the uniform u in a straddling bucket (entry e = q of its first u + 512): the cuts above decide.
  (func $split (param $u i32) (param $e i32) (result i32)
    (local $q i32)
    (local.set $q (i32.sub (local.get $e) (i32.const 512)))
    (block $done
      (loop $next
        (br_if $done (i32.ge_s (local.get $q) (i32.const 127)))
        (br_if $done (i32.gt_u
          (i32.load offset=131072 (i32.shl (i32.add (local.get $q) (i32.const 127)) (i32.const 2)))
          (local.get $u)))
        (local.set $q (i32.add (local.get $q) (i32.const 1)))
        (br $next)))
    (local.get $q))

  ;; Writes n ≥ 1 components (rounded up to a multiple of 4) at 132160.
  (func (export "draw") (param $n i32)
    (local $a v128) (local $b v128) (local $c v128) (local $d v128) (local $t v128) (local $idx v128)
    (local $i i32) (local $p i32) (local $end i32) (local $q i32)
    (local.set $a (v128.load (i32.const 132096)))
    (local.set $b (v128.load (i32.const 132112)))
    (local.set $c (v128.load (i32.const 132128)))
    (local.set $d (v128.load (i32.const 132144)))
    ;; The warm-up of 12 steps sfc32's author recommends after seeding.
    (local.set $i (i32.const 12))
    (loop $warm
      (local.set $t (i32x4.add (i32x4.add (local.get $a) (local.get $b)) (local.get $d)))
      (local.set $d (i32x4.add (local.get $d) (v128.const i32x4 1 1 1 1)))
      (local.set $a (v128.xor (local.get $b) (i32x4.shr_u (local.get $b) (i32.const 9))))
      (local.set $b (i32x4.add (local.get $c) (i32x4.shl (local.get $c) (i32.const 3))))
      (local.set $c (i32x4.add
        (v128.or (i32x4.shl (local.get $c) (i32.const 21)) (i32x4.shr_u (local.get $c) (i32.const 11)))
        (local.get $t)))
      (br_if $warm (local.tee $i (i32.sub (local.get $i) (i32.const 1)))))
    (local.set $p (i32.const 132160))
    (local.set $end (i32.add (local.get $p) (local.get $n)))
    (loop $step
      (local.set $t (i32x4.add (i32x4.add (local.get $a) (local.get $b)) (local.get $d)))
      (local.set $d (i32x4.add (local.get $d) (v128.const i32x4 1 1 1 1)))
      (local.set $a (v128.xor (local.get $b) (i32x4.shr_u (local.get $b) (i32.const 9))))
      (local.set $b (i32x4.add (local.get $c) (i32x4.shl (local.get $c) (i32.const 3))))
      (local.set $c (i32x4.add
        (v128.or (i32x4.shl (local.get $c) (i32.const 21)) (i32x4.shr_u (local.get $c) (i32.const 11)))
        (local.get $t)))
      ;; Byte offsets of the buckets: (u >>> 16) · 2.
      (local.set $idx (v128.and (i32x4.shr_u (local.get $t) (i32.const 15)) (v128.const i32x4 0x1fffe 0x1fffe 0x1fffe 0x1fffe)))
      (local.set $q (i32.load16_s (i32x4.extract_lane 0 (local.get $idx))))
      (if (i32.gt_s (local.get $q) (i32.const 127))
        (then (local.set $q (call $split (i32x4.extract_lane 0 (local.get $t)) (local.get $q)))))
      (i32.store8 (local.get $p) (local.get $q))
      (local.set $q (i32.load16_s (i32x4.extract_lane 1 (local.get $idx))))
      (if (i32.gt_s (local.get $q) (i32.const 127))
        (then (local.set $q (call $split (i32x4.extract_lane 1 (local.get $t)) (local.get $q)))))
      (i32.store8 offset=1 (local.get $p) (local.get $q))
      (local.set $q (i32.load16_s (i32x4.extract_lane 2 (local.get $idx))))
      (if (i32.gt_s (local.get $q) (i32.const 127))
        (then (local.set $q (call $split (i32x4.extract_lane 2 (local.get $t)) (local.get $q)))))
      (i32.store8 offset=2 (local.get $p) (local.get $q))
      (local.set $q (i32.load16_s (i32x4.extract_lane 3 (local.get $idx))))
      (if (i32.gt_s (local.get $q) (i32.const 127))
        (then (local.set $q (call $split (i32x4.extract_lane 3 (local.get $t)) (local.get $q)))))
      (i32.store8 offset=3 (local.get $p) (local.get $q))
      (br_if $step (i32.lt_u (local.tee $p (i32.add (local.get $p) (i32.const 4))) (local.get $end))))))
