;; The hamming-full tile (hamming-wasm.ts): the same triples as `hammingTileTs`, in the same
;; order, but 64 bits at a time with the native popcount (i64.popcnt, one POPCNT on x86-64).
;; The distance is checked against maxD after every 256 bits: two unrelated 1024-bit
;; signatures differ in about 128 of the first 256, so at the usual thresholds most
;; comparisons stop after four popcounts. rowBytes must be a multiple of 32.
;;
;; Memory (imported as e.m): the signatures from byte 0, n rows of rowBytes; the output
;; area from `out`, (i, j, d) as three i32 per pair. Returns the number of pairs written.
(module
  (import "e" "m" (memory 1))
  (func (export "tile")
    (param $iFrom i32) (param $iTo i32) (param $jFrom i32) (param $jTo i32)
    (param $rowBytes i32) (param $maxD i32) (param $out i32) (param $upper i32)
    (result i32)
    (local $i i32) (local $j i32) (local $a i32) (local $b i32) (local $k i32) (local $d i32) (local $p i32)
    (local.set $p (local.get $out))
    (local.set $i (local.get $iFrom))
    (block $rowsDone
      (loop $rows
        (br_if $rowsDone (i32.ge_u (local.get $i) (local.get $iTo)))
        ;; j = upper ? max(jFrom, i + 1) : jFrom
        (local.set $j (i32.add (local.get $i) (i32.const 1)))
        (local.set $j (select (local.get $j) (local.get $jFrom) (i32.gt_u (local.get $j) (local.get $jFrom))))
        (local.set $j (select (local.get $j) (local.get $jFrom) (local.get $upper)))
        (local.set $a (i32.mul (local.get $i) (local.get $rowBytes)))
        (block $colsDone
          (loop $cols
            (br_if $colsDone (i32.ge_u (local.get $j) (local.get $jTo)))
            (block $nextJ
              (local.set $b (i32.mul (local.get $j) (local.get $rowBytes)))
              (local.set $d (i32.const 0))
              (local.set $k (i32.const 0))
              (loop $words
                (local.set $d (i32.add (local.get $d) (i32.wrap_i64 (i64.popcnt (i64.xor
                  (i64.load offset=0 (i32.add (local.get $a) (local.get $k)))
                  (i64.load offset=0 (i32.add (local.get $b) (local.get $k))))))))
                (local.set $d (i32.add (local.get $d) (i32.wrap_i64 (i64.popcnt (i64.xor
                  (i64.load offset=8 (i32.add (local.get $a) (local.get $k)))
                  (i64.load offset=8 (i32.add (local.get $b) (local.get $k))))))))
                (local.set $d (i32.add (local.get $d) (i32.wrap_i64 (i64.popcnt (i64.xor
                  (i64.load offset=16 (i32.add (local.get $a) (local.get $k)))
                  (i64.load offset=16 (i32.add (local.get $b) (local.get $k))))))))
                (local.set $d (i32.add (local.get $d) (i32.wrap_i64 (i64.popcnt (i64.xor
                  (i64.load offset=24 (i32.add (local.get $a) (local.get $k)))
                  (i64.load offset=24 (i32.add (local.get $b) (local.get $k))))))))
                (br_if $nextJ (i32.gt_u (local.get $d) (local.get $maxD)))
                (br_if $words (i32.lt_u
                  (local.tee $k (i32.add (local.get $k) (i32.const 32)))
                  (local.get $rowBytes))))
              (i32.store offset=0 (local.get $p) (local.get $i))
              (i32.store offset=4 (local.get $p) (local.get $j))
              (i32.store offset=8 (local.get $p) (local.get $d))
              (local.set $p (i32.add (local.get $p) (i32.const 12))))
            (local.set $j (i32.add (local.get $j) (i32.const 1)))
            (br $cols)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $rows)))
    (i32.div_u (i32.sub (local.get $p) (local.get $out)) (i32.const 12))))
