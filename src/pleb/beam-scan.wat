;; The prefix filter of PLEB's beam scan (beam-scan-wasm.ts): the same walk over the sorted
;; positions as `beamScanTs`, 128 bits at a time with the SIMD popcount (i8x16.popcnt), writing
;; the pairs whose prefix distance is ≤ maxD, in scan order, for TypeScript to compare in full.
;;
;; Memory (imported as e.m), positions k local to the chunk (k = p − from):
;;   from byte 0      the gathered prefixes, P words (pBytes = 4P, a multiple of 8) per position;
;;   from $label      one label per position: a pair with equal labels is skipped;
;;   from $next       next[k], the first position ≥ k holding a fresh signature (span + 1 of them);
;;   from $out        (k, q) as two i32 per candidate, at most $cap of them.
;; Positions k ∈ [k0, count) are scanned, each against q ∈ (k, min(span, k + beam + 1)): every
;; one when k is fresh (next[k] = k), the fresh ones otherwise. $q0, when not 0, is where the
;; first position's walk resumes (after a full output area). Returns the number of candidates
;; written: $cap means the area filled and the scan resumes after the last one.
;;
;; Where every next position is compared (a fresh k, or no fresh flags) and $fBytes is not 0,
;; four positions are filtered together ($far4) on the first $fBytes bytes of their prefixes
;; (fBytes, chosen by beam-scan-wasm.ts so that unrelated signatures fail it): one reduction for
;; four positions, the labels unread. A group with a position that passes is walked again one
;; position at a time, which writes the same candidates in the same order.
(module
  (import "e" "m" (memory 1))
  ;; Bit i set when the first $fBytes bytes (8, or a multiple of 16 up to 240) of the prefix at
  ;; $b + i·$pBytes differ from those at $a in more than $maxD bits (i < 4): then so do the whole
  ;; prefixes. Byte lanes count at most 8 per 16 bytes, so they stay below 256.
  (func $far4 (param $a i32) (param $b i32) (param $pBytes i32) (param $fBytes i32) (param $maxD i32) (result i32)
    (local $w i32) (local $t i32) (local $va v128)
    (local $c0 v128) (local $c1 v128) (local $c2 v128) (local $c3 v128) (local $f01 v128) (local $f23 v128)
    (if (i32.eq (local.get $fBytes) (i32.const 8))
      (then
        (local.set $va (v128.load64_zero (local.get $a)))
        (local.set $c0 (i8x16.popcnt (v128.xor (local.get $va) (v128.load64_zero (local.get $b)))))
        (local.set $b (i32.add (local.get $b) (local.get $pBytes)))
        (local.set $c1 (i8x16.popcnt (v128.xor (local.get $va) (v128.load64_zero (local.get $b)))))
        (local.set $b (i32.add (local.get $b) (local.get $pBytes)))
        (local.set $c2 (i8x16.popcnt (v128.xor (local.get $va) (v128.load64_zero (local.get $b)))))
        (local.set $b (i32.add (local.get $b) (local.get $pBytes)))
        (local.set $c3 (i8x16.popcnt (v128.xor (local.get $va) (v128.load64_zero (local.get $b))))))
      (else
        (loop $steps
          (local.set $va (v128.load (i32.add (local.get $a) (local.get $w))))
          (local.set $t (i32.add (local.get $b) (local.get $w)))
          (local.set $c0 (i8x16.add (local.get $c0) (i8x16.popcnt (v128.xor (local.get $va) (v128.load (local.get $t))))))
          (local.set $t (i32.add (local.get $t) (local.get $pBytes)))
          (local.set $c1 (i8x16.add (local.get $c1) (i8x16.popcnt (v128.xor (local.get $va) (v128.load (local.get $t))))))
          (local.set $t (i32.add (local.get $t) (local.get $pBytes)))
          (local.set $c2 (i8x16.add (local.get $c2) (i8x16.popcnt (v128.xor (local.get $va) (v128.load (local.get $t))))))
          (local.set $t (i32.add (local.get $t) (local.get $pBytes)))
          (local.set $c3 (i8x16.add (local.get $c3) (i8x16.popcnt (v128.xor (local.get $va) (v128.load (local.get $t))))))
          (local.set $w (i32.add (local.get $w) (i32.const 16)))
          (br_if $steps (i32.lt_u (local.get $w) (local.get $fBytes))))))
    ;; Byte counts → 8 sums of 16 bits per position; then pairs of positions side by side
    ;; (even lanes plus odd lanes) until each position's total fills one 32-bit lane.
    (local.set $c0 (i16x8.extadd_pairwise_i8x16_u (local.get $c0)))
    (local.set $c1 (i16x8.extadd_pairwise_i8x16_u (local.get $c1)))
    (local.set $c2 (i16x8.extadd_pairwise_i8x16_u (local.get $c2)))
    (local.set $c3 (i16x8.extadd_pairwise_i8x16_u (local.get $c3)))
    (local.set $f01 (i16x8.add
      (i8x16.shuffle 0 1 4 5 8 9 12 13 16 17 20 21 24 25 28 29 (local.get $c0) (local.get $c1))
      (i8x16.shuffle 2 3 6 7 10 11 14 15 18 19 22 23 26 27 30 31 (local.get $c0) (local.get $c1))))
    (local.set $f23 (i16x8.add
      (i8x16.shuffle 0 1 4 5 8 9 12 13 16 17 20 21 24 25 28 29 (local.get $c2) (local.get $c3))
      (i8x16.shuffle 2 3 6 7 10 11 14 15 18 19 22 23 26 27 30 31 (local.get $c2) (local.get $c3))))
    (i32x4.bitmask (i32x4.gt_u
      (i32x4.extadd_pairwise_i16x8_u (i16x8.add
        (i8x16.shuffle 0 1 4 5 8 9 12 13 16 17 20 21 24 25 28 29 (local.get $f01) (local.get $f23))
        (i8x16.shuffle 2 3 6 7 10 11 14 15 18 19 22 23 26 27 30 31 (local.get $f01) (local.get $f23))))
      (i32x4.splat (local.get $maxD)))))
  (func (export "scan")
    (param $k0 i32) (param $q0 i32) (param $count i32) (param $span i32) (param $beam i32)
    (param $pBytes i32) (param $fBytes i32) (param $maxD i32) (param $label i32) (param $next i32) (param $out i32) (param $cap i32)
    (result i32)
    (local $k i32) (local $q i32) (local $end i32) (local $la i32) (local $all i32)
    (local $a i32) (local $b i32) (local $w i32) (local $d i32) (local $written i32) (local $acc v128)
    (local $singleBelow i32)
    (local.set $k (local.get $k0))
    (block $positionsDone
      (loop $positions
        (br_if $positionsDone (i32.ge_u (local.get $k) (local.get $count)))
        ;; end = min(span, k + beam + 1); beam ≤ span (the caller clamps it), so no overflow.
        (local.set $end (i32.add (local.get $k) (i32.add (local.get $beam) (i32.const 1))))
        (local.set $end (select (local.get $span) (local.get $end) (i32.gt_u (local.get $end) (local.get $span))))
        (local.set $la (i32.load (i32.add (local.get $label) (i32.shl (local.get $k) (i32.const 2)))))
        (local.set $all (i32.eq (i32.load (i32.add (local.get $next) (i32.shl (local.get $k) (i32.const 2)))) (local.get $k)))
        ;; q = q0 (resuming), else k + 1 for a fresh k, else the first fresh one after k.
        (local.set $q
          (if (result i32) (local.get $q0)
            (then (local.get $q0))
            (else (if (result i32) (local.get $all)
              (then (i32.add (local.get $k) (i32.const 1)))
              (else (i32.load (i32.add (local.get $next) (i32.shl (i32.add (local.get $k) (i32.const 1)) (i32.const 2)))))))))
        (local.set $q0 (i32.const 0))
        (local.set $a (i32.mul (local.get $k) (local.get $pBytes)))
        (local.set $singleBelow (i32.const 0))
        (block $pairsDone
          (loop $pairs
            (br_if $pairsDone (i32.ge_u (local.get $q) (local.get $end)))
            (if (i32.and
                  (i32.and (local.get $all) (i32.ne (local.get $fBytes) (i32.const 0)))
                  (i32.and (i32.ge_u (local.get $q) (local.get $singleBelow)) (i32.le_u (i32.add (local.get $q) (i32.const 4)) (local.get $end))))
              (then
                (if (i32.eq (call $far4 (local.get $a) (i32.mul (local.get $q) (local.get $pBytes)) (local.get $pBytes) (local.get $fBytes) (local.get $maxD)) (i32.const 15))
                  (then
                    (local.set $q (i32.add (local.get $q) (i32.const 4)))
                    (br $pairs)))
                (local.set $singleBelow (i32.add (local.get $q) (i32.const 4)))))
            (block $skip
              (br_if $skip (i32.eq (i32.load (i32.add (local.get $label) (i32.shl (local.get $q) (i32.const 2)))) (local.get $la)))
              (local.set $b (i32.mul (local.get $q) (local.get $pBytes)))
              ;; 128 bits per step, the popcounts of each step summed into 8 lanes of 16 bits
              ;; (at most 16 per lane and step: no overflow below 4096 steps); no early exit:
              ;; P is the shortest prefix that rejects far pairs, so most need all of it, and a
              ;; branch-free pass is faster than one that tests the count every 64 bits.
              (local.set $acc (v128.const i64x2 0 0))
              (local.set $w (i32.const 0))
              (block $vectorsDone
                (loop $vectors
                  (br_if $vectorsDone (i32.gt_u (i32.add (local.get $w) (i32.const 16)) (local.get $pBytes)))
                  (local.set $acc (i16x8.add (local.get $acc)
                    (i16x8.extadd_pairwise_i8x16_u (i8x16.popcnt (v128.xor
                      (v128.load (i32.add (local.get $a) (local.get $w)))
                      (v128.load (i32.add (local.get $b) (local.get $w))))))))
                  (local.set $w (i32.add (local.get $w) (i32.const 16)))
                  (br $vectors)))
              (local.set $acc (i32x4.extadd_pairwise_i16x8_u (local.get $acc)))
              (local.set $d (i32.add
                (i32.add (i32x4.extract_lane 0 (local.get $acc)) (i32x4.extract_lane 1 (local.get $acc)))
                (i32.add (i32x4.extract_lane 2 (local.get $acc)) (i32x4.extract_lane 3 (local.get $acc)))))
              ;; The last 64 bits of a prefix of pBytes ≡ 8 (mod 16).
              (if (i32.lt_u (local.get $w) (local.get $pBytes))
                (then (local.set $d (i32.add (local.get $d) (i32.wrap_i64 (i64.popcnt (i64.xor
                  (i64.load (i32.add (local.get $a) (local.get $w)))
                  (i64.load (i32.add (local.get $b) (local.get $w))))))))))
              (br_if $skip (i32.gt_u (local.get $d) (local.get $maxD)))
              (i32.store offset=0 (i32.add (local.get $out) (i32.shl (local.get $written) (i32.const 3))) (local.get $k))
              (i32.store offset=4 (i32.add (local.get $out) (i32.shl (local.get $written) (i32.const 3))) (local.get $q))
              (local.set $written (i32.add (local.get $written) (i32.const 1)))
              (if (i32.eq (local.get $written) (local.get $cap)) (then (return (local.get $written)))))
            (local.set $q
              (if (result i32) (local.get $all)
                (then (i32.add (local.get $q) (i32.const 1)))
                (else (i32.load (i32.add (local.get $next) (i32.shl (i32.add (local.get $q) (i32.const 1)) (i32.const 2)))))))
            (br $pairs)))
        (local.set $k (i32.add (local.get $k) (i32.const 1)))
        (br $positions)))
    (local.get $written)))
