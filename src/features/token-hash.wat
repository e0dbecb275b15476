;; `TokenHasher.hashWord` over a run of token lines (token-hash-wasm.ts): the same two
;; MurmurHash3 lanes per UTF-16 code unit, decoded from the UTF-8 bytes of the word column, so
;; the term hashes are identical. It hashes line after line and stops, leaving the line to the
;; TypeScript parser, at anything else but structure lines without attributes (`<name>`,
;; `</name>` closing the innermost element the run opened, `<name/>`; not `doc`, nor `p` when
;; its ranges are recorded): another line that starts with `<` or is empty,
;; a line without its newline at the end of the chunk, a CRLF line end (an error), and a token
;; whose hash needs the string path (a code point of 3 or 4 bytes, one the table of the
;; caller's normalisation and lowercasing sends there, no ASCII letter but a non-ASCII
;; character: Unicode classes decide).
;;
;; `newlines` counts a chunk's newlines (chunkExtent of chunker.ts).
;; `count` is `countInto` of terms.ts for one document's kept hashes: its distinct terms in
;; order of first occurrence and their counts; `df` is `documentFrequencies` of count-shard.ts
;; (without partial dfs) for the shard's terms, on a memory of its own.
;;
;; Memory (imported as e.m): [0, 16) the results of the last run (lines read, the byte offset
;; after the last hash written, token lines read, elements it opened and left open, whose
;; names' byte ranges are at [4224, 4736) as (start, end) pairs, outermost first); [64, 4160) the table of code points below 0x800
;; (u16: what the code point becomes in a term, 0 = string path; terms.ts twoByteTable, written by the caller); from 8192 `count`'s table and output (the
;; offsets below, for up to 2^16 values); the chunk and the hashes where the caller says.
;; flags: 1 = lowercase, 2 = keep digit-only tokens, 4 = p elements are the parser's.
(module
  (import "e" "m" (memory 1))

  (func $fmix (param $h i32) (result i32)
    (local.set $h (i32.mul (i32.xor (local.get $h) (i32.shr_u (local.get $h) (i32.const 16))) (i32.const 0x85ebca6b)))
    (local.set $h (i32.mul (i32.xor (local.get $h) (i32.shr_u (local.get $h) (i32.const 13))) (i32.const 0xc2b2ae35)))
    (i32.xor (local.get $h) (i32.shr_u (local.get $h) (i32.const 16))))

  ;; Hashes the token lines from byte pos (below n) and writes each kept token's 53-bit hash
  ;; as an f64 from byte out; returns where it stopped (the start of the line it left).
  (func (export "run") (param $pos i32) (param $n i32) (param $out i32) (param $flags i32) (result i32)
    (local $lines i32) (local $elements i32) (local $i i32) (local $c i32) (local $k i32)
    (local $closing i32) (local $name i32) (local $nameLen i32) (local $top i32) (local $depth i32) (local $paragraphs i32)
    (local $a i32) (local $b i32) (local $len i32)
    (local $letter i32) (local $digit i32) (local $other i32) (local $nonAscii i32)
    (local $lower i32) (local $keepNumbers i32)
    (local.set $lower (i32.and (local.get $flags) (i32.const 1)))
    (local.set $keepNumbers (i32.and (local.get $flags) (i32.const 2)))
    (local.set $paragraphs (i32.and (local.get $flags) (i32.const 4)))
    (block $stop
      (loop $line
        (br_if $stop (i32.ge_u (local.get $pos) (local.get $n)))
        (local.set $c (i32.load8_u (local.get $pos)))
        (if (i32.eq (local.get $c) (i32.const 0x3c))
          (then
            ;; a structure line without attributes, `<name>`, `</name>` or `<name/>`: a name
            ;; start (letter or _), name characters (letters, digits, _ . : -), the end, the
            ;; newline. The doc element (and p when its ranges are recorded) is the parser's.
            (local.set $i (i32.add (local.get $pos) (i32.const 1)))
            (br_if $stop (i32.ge_u (local.get $i) (local.get $n)))
            (local.set $closing (i32.eq (i32.load8_u (local.get $i)) (i32.const 0x2f)))
            (local.set $i (i32.add (local.get $i) (local.get $closing)))
            (br_if $stop (i32.ge_u (local.get $i) (local.get $n)))
            (local.set $name (local.get $i))
            (local.set $k (i32.or (i32.load8_u (local.get $i)) (i32.const 0x20)))
            (br_if $stop (i32.and
              (i32.ge_u (i32.sub (local.get $k) (i32.const 0x61)) (i32.const 26))
              (i32.ne (i32.load8_u (local.get $i)) (i32.const 0x5f))))
            (block $nameEnd
              (loop $nameChar
                (local.set $i (i32.add (local.get $i) (i32.const 1)))
                (br_if $stop (i32.ge_u (local.get $i) (local.get $n)))
                (local.set $c (i32.load8_u (local.get $i)))
                (br_if $nameChar (i32.lt_u (i32.sub (i32.or (local.get $c) (i32.const 0x20)) (i32.const 0x61)) (i32.const 26)))
                (br_if $nameChar (i32.lt_u (i32.sub (local.get $c) (i32.const 0x30)) (i32.const 10)))
                (br_if $nameChar (i32.eq (local.get $c) (i32.const 0x5f)))
                (br_if $nameChar (i32.eq (local.get $c) (i32.const 0x2e)))
                (br_if $nameChar (i32.eq (local.get $c) (i32.const 0x3a)))
                (br_if $nameChar (i32.eq (local.get $c) (i32.const 0x2d)))))
            (local.set $nameLen (i32.sub (local.get $i) (local.get $name)))
            (br_if $stop (i32.and
              (i32.eq (local.get $nameLen) (i32.const 3))
              (i32.eq (i32.and (i32.load (local.get $name)) (i32.const 0xffffff)) (i32.const 0x636f64))))
            (br_if $stop (i32.and
              (i32.and (local.get $paragraphs) (i32.eq (local.get $nameLen) (i32.const 1)))
              (i32.eq (i32.load8_u (local.get $name)) (i32.const 0x70))))
            (if (i32.eq (local.get $c) (i32.const 0x2f))
              (then
                ;; `<name/>`: an empty element, which the parser passes over
                (br_if $stop (local.get $closing))
                (br_if $stop (i32.ge_u (i32.add (local.get $i) (i32.const 2)) (local.get $n)))
                (br_if $stop (i32.ne (i32.load16_u (local.get $i)) (i32.const 0x3e2f)))
                (br_if $stop (i32.ne (i32.load8_u offset=2 (local.get $i)) (i32.const 0x0a)))
                (local.set $lines (i32.add (local.get $lines) (i32.const 1)))
                (local.set $elements (i32.add (local.get $elements) (i32.const 1)))
                (local.set $pos (i32.add (local.get $i) (i32.const 3)))
                (br $line)))
            (br_if $stop (i32.ge_u (i32.add (local.get $i) (i32.const 1)) (local.get $n)))
            (br_if $stop (i32.ne (i32.load16_u (local.get $i)) (i32.const 0x0a3e)))
            (if (local.get $closing)
              (then
                ;; `</name>` closes the innermost element opened in this run if it has this
                ;; name; anything else is for the parser's stack of open elements
                (br_if $stop (i32.eqz (local.get $depth)))
                (local.set $k (i32.add (i32.const 4224) (i32.shl (i32.sub (local.get $depth) (i32.const 1)) (i32.const 3))))
                (local.set $top (i32.load (local.get $k)))
                (br_if $stop (i32.ne (i32.sub (i32.load offset=4 (local.get $k)) (local.get $top)) (local.get $nameLen)))
                (local.set $k (i32.const 0))
                (block $same
                  (loop $compare
                    (br_if $same (i32.ge_u (local.get $k) (local.get $nameLen)))
                    (br_if $stop (i32.ne
                      (i32.load8_u (i32.add (local.get $top) (local.get $k)))
                      (i32.load8_u (i32.add (local.get $name) (local.get $k)))))
                    (local.set $k (i32.add (local.get $k) (i32.const 1)))
                    (br $compare)))
                (local.set $depth (i32.sub (local.get $depth) (i32.const 1))))
              (else
                ;; `<name>`: its name's bytes on the run's stack (64 at most)
                (br_if $stop (i32.ge_u (local.get $depth) (i32.const 64)))
                (local.set $k (i32.add (i32.const 4224) (i32.shl (local.get $depth) (i32.const 3))))
                (i32.store (local.get $k) (local.get $name))
                (i32.store offset=4 (local.get $k) (local.get $i))
                (local.set $depth (i32.add (local.get $depth) (i32.const 1)))))
            (local.set $lines (i32.add (local.get $lines) (i32.const 1)))
            (local.set $elements (i32.add (local.get $elements) (i32.const 1)))
            (local.set $pos (i32.add (local.get $i) (i32.const 2)))
            (br $line)))
        (br_if $stop (i32.eq (local.get $c) (i32.const 0x0a)))
        (local.set $a (i32.const 0x9747b28c))
        (local.set $b (i32.const 0x2545f491))
        (local.set $len (i32.const 0))
        (local.set $letter (i32.const 0))
        (local.set $digit (i32.const 0))
        (local.set $other (i32.const 0))
        (local.set $nonAscii (i32.const 0))
        (local.set $i (local.get $pos))
        (block $tokenEnd
          (loop $unit
            (br_if $stop (i32.ge_u (local.get $i) (local.get $n)))
            (local.set $c (i32.load8_u (local.get $i)))
            (if (i32.lt_u (local.get $c) (i32.const 0x80))
              (then
                (br_if $tokenEnd (i32.eq (local.get $c) (i32.const 0x09)))
                (br_if $tokenEnd (i32.eq (local.get $c) (i32.const 0x0a)))
                ;; c | 0x20 folds A–Z onto a–z
                (local.set $k (i32.or (local.get $c) (i32.const 0x20)))
                (if (i32.lt_u (i32.sub (local.get $k) (i32.const 0x61)) (i32.const 26))
                  (then
                    (local.set $letter (i32.const 1))
                    (if (local.get $lower) (then (local.set $c (local.get $k)))))
                  (else
                    (if (i32.lt_u (i32.sub (local.get $c) (i32.const 0x30)) (i32.const 10))
                      (then (local.set $digit (i32.const 1)))
                      (else (local.set $other (i32.const 1))))))
                (local.set $i (i32.add (local.get $i) (i32.const 1))))
              (else
                ;; a 2-byte sequence (the chunk is valid UTF-8); longer ones take the string path
                (br_if $stop (i32.ge_u (local.get $c) (i32.const 0xe0)))
                (br_if $stop (i32.ge_u (i32.add (local.get $i) (i32.const 1)) (local.get $n)))
                (local.set $c (i32.or
                  (i32.shl (i32.and (local.get $c) (i32.const 0x1f)) (i32.const 6))
                  (i32.and (i32.load8_u offset=1 (local.get $i)) (i32.const 0x3f))))
                ;; normalised and lowercased as asked (terms.ts twoByteTable)
                (local.set $c (i32.load16_u offset=64 (i32.shl (local.get $c) (i32.const 1))))
                (br_if $stop (i32.eqz (local.get $c)))
                (local.set $nonAscii (i32.const 1))
                (local.set $i (i32.add (local.get $i) (i32.const 2)))))
            ;; lane A, then lane B (hash.ts mixA, mixB)
            (local.set $k (i32.mul (i32.rotl (i32.mul (local.get $c) (i32.const 0xcc9e2d51)) (i32.const 15)) (i32.const 0x1b873593)))
            (local.set $a (i32.add (i32.mul (i32.rotl (i32.xor (local.get $a) (local.get $k)) (i32.const 13)) (i32.const 5)) (i32.const 0xe6546b64)))
            (local.set $k (i32.mul (i32.rotl (i32.mul (local.get $c) (i32.const 0x85ebca77)) (i32.const 15)) (i32.const 0xc2b2ae3d)))
            (local.set $b (i32.add (i32.mul (i32.rotl (i32.xor (local.get $b) (local.get $k)) (i32.const 13)) (i32.const 5)) (i32.const 0xe6546b64)))
            (local.set $len (i32.add (local.get $len) (i32.const 1)))
            (br $unit)))
        ;; the token ends at a tab or the newline: on to the newline
        (block $lineEnd
          (loop $scan
            (br_if $stop (i32.ge_u (local.get $i) (local.get $n)))
            (br_if $lineEnd (i32.eq (i32.load8_u (local.get $i)) (i32.const 0x0a)))
            (local.set $i (i32.add (local.get $i) (i32.const 1)))
            (br $scan)))
        (br_if $stop (i32.eq (i32.load8_u (i32.sub (local.get $i) (i32.const 1))) (i32.const 0x0d)))
        (if (i32.eqz (local.get $letter))
          (then
            (br_if $stop (local.get $nonAscii))
            ;; dropped: no digit, or digits only (and other ASCII) unless kept
            (if (i32.or
                  (i32.eqz (local.get $digit))
                  (i32.and (i32.eqz (local.get $keepNumbers)) (i32.eqz (local.get $other))))
              (then
                (local.set $lines (i32.add (local.get $lines) (i32.const 1)))
                (local.set $pos (i32.add (local.get $i) (i32.const 1)))
                (br $line)))))
        ;; hash.ts finishString: (fmix(b ^ len) & 0x1fffff) · 2^32 + fmix(a ^ len), exact in an f64
        (f64.store (local.get $out) (f64.convert_i64_u (i64.or
          (i64.shl
            (i64.extend_i32_u (i32.and (call $fmix (i32.xor (local.get $b) (local.get $len))) (i32.const 0x1fffff)))
            (i64.const 32))
          (i64.extend_i32_u (call $fmix (i32.xor (local.get $a) (local.get $len)))))))
        (local.set $out (i32.add (local.get $out) (i32.const 8)))
        (local.set $lines (i32.add (local.get $lines) (i32.const 1)))
        (local.set $pos (i32.add (local.get $i) (i32.const 1)))
        (br $line)))
    (i32.store (i32.const 0) (local.get $lines))
    (i32.store (i32.const 4) (local.get $out))
    (i32.store (i32.const 8) (i32.sub (local.get $lines) (local.get $elements)))
    (i32.store (i32.const 12) (local.get $depth))
    (local.get $pos))

  ;; The newlines (byte 10) in bytes [pos, end) (the chunk's line count, which the next chunk's
  ;; numbering waits for): 16 bytes at a time, then the tail byte by byte.
  (func (export "newlines") (param $pos i32) (param $end i32) (result i32)
    (local $n i32)
    (block $wide
      (loop $blocks
        (br_if $wide (i32.gt_u (i32.add (local.get $pos) (i32.const 16)) (local.get $end)))
        (local.set $n (i32.add (local.get $n)
          (i32.popcnt (i8x16.bitmask (i8x16.eq (v128.load (local.get $pos)) (i8x16.splat (i32.const 10)))))))
        (local.set $pos (i32.add (local.get $pos) (i32.const 16)))
        (br $blocks)))
    (block $done
      (loop $bytes
        (br_if $done (i32.ge_u (local.get $pos) (local.get $end)))
        (local.set $n (i32.add (local.get $n) (i32.eq (i32.load8_u (local.get $pos)) (i32.const 10))))
        (local.set $pos (i32.add (local.get $pos) (i32.const 1)))
        (br $bytes)))
    (local.get $n))

  ;; The n f64 values from byte seq into an open-addressing table of size slots (a power of
  ;; two ≥ 2n, at most 2^17): keys (the value's bits + 1, 0 = empty) at 8192, the slot's
  ;; output index at 0x102000 (after 2^17 keys); the distinct values, in order of first
  ;; occurrence, to 0x182000 (f64) and their counts to 0x202000 (u32). Returns how many.
  (func (export "count") (param $seq i32) (param $n i32) (param $size i32) (result i32)
    (local $m i32) (local $end i32) (local $mask i32) (local $slot i32) (local $at i32) (local $key i64) (local $found i64)
    (memory.fill (i32.const 8192) (i32.const 0) (i32.shl (local.get $size) (i32.const 3)))
    (local.set $mask (i32.sub (local.get $size) (i32.const 1)))
    (local.set $end (i32.add (local.get $seq) (i32.shl (local.get $n) (i32.const 3))))
    (block $done
      (br_if $done (i32.ge_u (local.get $seq) (local.get $end)))
      (loop $values
        (local.set $key (i64.add (i64.load (local.get $seq)) (i64.const 1)))
        (local.set $slot (i32.and
          (i32.xor (i32.wrap_i64 (local.get $key)) (i32.mul (i32.wrap_i64 (i64.shr_u (local.get $key) (i64.const 32))) (i32.const 0x9e3779b1)))
          (local.get $mask)))
        (block $placed
          (loop $probe
            (local.set $found (i64.load offset=8192 (i32.shl (local.get $slot) (i32.const 3))))
            (if (i64.eqz (local.get $found))
              (then
                (i64.store offset=8192 (i32.shl (local.get $slot) (i32.const 3)) (local.get $key))
                (i32.store offset=0x102000 (i32.shl (local.get $slot) (i32.const 2)) (local.get $m))
                (f64.store offset=0x182000 (i32.shl (local.get $m) (i32.const 3)) (f64.load (local.get $seq)))
                (i32.store offset=0x202000 (i32.shl (local.get $m) (i32.const 2)) (i32.const 1))
                (local.set $m (i32.add (local.get $m) (i32.const 1)))
                (br $placed)))
            (if (i64.eq (local.get $found) (local.get $key))
              (then
                (local.set $at (i32.shl (i32.load offset=0x102000 (i32.shl (local.get $slot) (i32.const 2))) (i32.const 2)))
                (i32.store offset=0x202000 (local.get $at) (i32.add (i32.load offset=0x202000 (local.get $at)) (i32.const 1)))
                (br $placed)))
            (local.set $slot (i32.and (i32.add (local.get $slot) (i32.const 1)) (local.get $mask)))
            (br $probe)))
        (br_if $values (i32.lt_u
          (local.tee $seq (i32.add (local.get $seq) (i32.const 8)))
          (local.get $end)))))
    (local.get $m))

  ;; documentFrequencies: the n terms (f64 integers below 2^53) at byte terms, bucket-sorted
  ;; by their top `bits` bits (bucket starts at byte starts, their fill points at byte fill,
  ;; 2^bits + 1 of each, zeroed here) into byte sorted, insertion-sorted within a bucket,
  ;; each with its weight (u32 at byte weights, or 1 when weights is 0: partial dfs summed by
  ;; the vocabulary step) at byte dfs; then equal terms merged in place with the sum of their
  ;; weights at byte dfs (u32). Returns how many distinct terms. Non-negative f64 compare as
  ;; their bits do, so the sort moves bits.
  (func (export "df") (param $terms i32) (param $n i32) (param $bits i32) (param $starts i32) (param $fill i32) (param $sorted i32) (param $dfs i32) (param $weights i32) (result i32)
    (local $k i32) (local $b i32) (local $i i32) (local $from i32) (local $m i32) (local $buckets i32)
    (local $shift i64) (local $term i64) (local $prev i64) (local $w i32)
    (local.set $shift (i64.extend_i32_u (i32.sub (i32.const 53) (local.get $bits))))
    (local.set $buckets (i32.add (i32.shl (i32.const 1) (local.get $bits)) (i32.const 1)))
    (memory.fill (local.get $starts) (i32.const 0) (i32.shl (local.get $buckets) (i32.const 2)))
    ;; counts per bucket, at b + 1
    (local.set $k (i32.const 0))
    (block $counted
      (loop $count
        (br_if $counted (i32.ge_u (local.get $k) (local.get $n)))
        (local.set $b (i32.wrap_i64 (i64.shr_u
          (i64.trunc_f64_u (f64.load (i32.add (local.get $terms) (i32.shl (local.get $k) (i32.const 3)))))
          (local.get $shift))))
        (local.set $i (i32.add (local.get $starts) (i32.shl (i32.add (local.get $b) (i32.const 1)) (i32.const 2))))
        (i32.store (local.get $i) (i32.add (i32.load (local.get $i)) (i32.const 1)))
        (local.set $k (i32.add (local.get $k) (i32.const 1)))
        (br $count)))
    ;; prefix sums: bucket starts; fill points start there
    (local.set $k (i32.const 1))
    (block $summed
      (loop $sum
        (br_if $summed (i32.ge_u (local.get $k) (local.get $buckets)))
        (local.set $i (i32.add (local.get $starts) (i32.shl (local.get $k) (i32.const 2))))
        (i32.store (local.get $i) (i32.add (i32.load (local.get $i)) (i32.load offset=0 (i32.sub (local.get $i) (i32.const 4)))))
        (local.set $k (i32.add (local.get $k) (i32.const 1)))
        (br $sum)))
    (memory.copy (local.get $fill) (local.get $starts) (i32.shl (local.get $buckets) (i32.const 2)))
    ;; scatter, each term inserted into its bucket's filled part
    (local.set $k (i32.const 0))
    (block $scattered
      (loop $scatter
        (br_if $scattered (i32.ge_u (local.get $k) (local.get $n)))
        (local.set $term (i64.load (i32.add (local.get $terms) (i32.shl (local.get $k) (i32.const 3)))))
        (local.set $b (i32.shl (i32.wrap_i64 (i64.shr_u (i64.trunc_f64_u (f64.reinterpret_i64 (local.get $term))) (local.get $shift))) (i32.const 2)))
        (local.set $i (i32.load (i32.add (local.get $fill) (local.get $b))))
        (i32.store (i32.add (local.get $fill) (local.get $b)) (i32.add (local.get $i) (i32.const 1)))
        (local.set $from (i32.load (i32.add (local.get $starts) (local.get $b))))
        (local.set $w (if (result i32) (local.get $weights)
          (then (i32.load (i32.add (local.get $weights) (i32.shl (local.get $k) (i32.const 2)))))
          (else (i32.const 1))))
        (block $inserted
          (loop $shiftUp
            (br_if $inserted (i32.le_u (local.get $i) (local.get $from)))
            (local.set $prev (i64.load (i32.add (local.get $sorted) (i32.shl (i32.sub (local.get $i) (i32.const 1)) (i32.const 3)))))
            (br_if $inserted (i64.le_u (local.get $prev) (local.get $term)))
            (i64.store (i32.add (local.get $sorted) (i32.shl (local.get $i) (i32.const 3))) (local.get $prev))
            (i32.store (i32.add (local.get $dfs) (i32.shl (local.get $i) (i32.const 2)))
              (i32.load (i32.add (local.get $dfs) (i32.shl (i32.sub (local.get $i) (i32.const 1)) (i32.const 2)))))
            (local.set $i (i32.sub (local.get $i) (i32.const 1)))
            (br $shiftUp)))
        (i64.store (i32.add (local.get $sorted) (i32.shl (local.get $i) (i32.const 3))) (local.get $term))
        (i32.store (i32.add (local.get $dfs) (i32.shl (local.get $i) (i32.const 2))) (local.get $w))
        (local.set $k (i32.add (local.get $k) (i32.const 1)))
        (br $scatter)))
    ;; equal terms merged in place (m ≤ k)
    (local.set $k (i32.const 0))
    (block $merged
      (loop $merge
        (br_if $merged (i32.ge_u (local.get $k) (local.get $n)))
        (local.set $term (i64.load (i32.add (local.get $sorted) (i32.shl (local.get $k) (i32.const 3)))))
        (if (i32.and (i32.ne (local.get $m) (i32.const 0))
              (i64.eq (local.get $term) (i64.load (i32.add (local.get $sorted) (i32.shl (i32.sub (local.get $m) (i32.const 1)) (i32.const 3))))))
          (then
            (local.set $i (i32.add (local.get $dfs) (i32.shl (i32.sub (local.get $m) (i32.const 1)) (i32.const 2))))
            (i32.store (local.get $i) (i32.add (i32.load (local.get $i)) (i32.load (i32.add (local.get $dfs) (i32.shl (local.get $k) (i32.const 2)))))))
          (else
            (i64.store (i32.add (local.get $sorted) (i32.shl (local.get $m) (i32.const 3))) (local.get $term))
            (i32.store (i32.add (local.get $dfs) (i32.shl (local.get $m) (i32.const 2))) (i32.load (i32.add (local.get $dfs) (i32.shl (local.get $k) (i32.const 2)))))
            (local.set $m (i32.add (local.get $m) (i32.const 1)))))
        (local.set $k (i32.add (local.get $k) (i32.const 1)))
        (br $merge)))
    (local.get $m)))
