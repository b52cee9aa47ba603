;; The matrix products of chapter 15's model, run in the page: Y = X Wᵀ for weights
;; stored 4 or 8 bits per number, dequantised on the fly (nothing is expanded to float32).
;;
;; Weights are the GGUF file's blocks of 32 numbers, repacked by smollm2.js so that
;; the two float16 scales become float32:
;;   Q4_1: 24 bytes a block: f32 d, f32 m, 16 bytes q; number k is d · q_k + m, where
;;         q_k (k < 16) is the low nibble of byte k and q_{k+16} its high nibble;
;;   Q8_0: 36 bytes a block: f32 d, 32 signed bytes q; number k is d · q_k.
;; A weight matrix has `rows` rows of `nb` blocks (row r holds the weights that make
;; output r). X is float32, given block by block: X[b] is (n, 32), the numbers 32 b … 32 b + 31
;; of every token (smollm2.js lays it out so). Y float32 (n, rows); Y[t, r] = Σ_k X[t, k] W[r, k].
;; Each block is decoded once, to the same float32 numbers as numpy's dequantised W, and used
;; for all n tokens.
(module
  (import "env" "memory" (memory 1))

  ;; Y (n, rows) = X Wᵀ; kind 4: Q4_1 blocks, kind 8: Q8_0 blocks.
  ;; tmp: 16 · n bytes of scratch (one f32x4 accumulator a token), 16-byte aligned.
  (func (export "matmul") (param $kind i32) (param $w i32) (param $rows i32) (param $nb i32)
                          (param $x i32) (param $n i32) (param $y i32) (param $tmp i32)
    (local $r i32) (local $t i32) (local $b i32) (local $blk i32) (local $size i32) (local $xblock i32)
    (local $q v128) (local $q2 v128) (local $lo v128) (local $hi v128) (local $d v128) (local $m v128)
    (local $f0 v128) (local $f1 v128) (local $f2 v128) (local $f3 v128)
    (local $f4 v128) (local $f5 v128) (local $f6 v128) (local $f7 v128)
    (local $px i32) (local $pa i32) (local $end i32) (local $v v128)
    (local.set $xblock (i32.shl (local.get $n) (i32.const 7)))          ;; bytes in X[b]: n · 32 · 4
    (local.set $end (i32.add (local.get $tmp) (i32.shl (local.get $n) (i32.const 4))))
    (local.set $size (select (i32.const 24) (i32.const 36) (i32.eq (local.get $kind) (i32.const 4))))
    (local.set $r (i32.const 0))
    (block $rows_done (loop $row
      (br_if $rows_done (i32.ge_s (local.get $r) (local.get $rows)))
      (local.set $pa (local.get $tmp))
      (block $zdone (loop $zero
        (br_if $zdone (i32.ge_u (local.get $pa) (local.get $end)))
        (v128.store (local.get $pa) (v128.const f32x4 0 0 0 0))
        (local.set $pa (i32.add (local.get $pa) (i32.const 16)))
        (br $zero)))
      (local.set $blk (i32.add (local.get $w) (i32.mul (i32.mul (local.get $r) (local.get $nb)) (local.get $size))))
      (local.set $px (local.get $x))
      (local.set $b (i32.const 0))
      (block $blocks_done (loop $blocks
        (br_if $blocks_done (i32.ge_s (local.get $b) (local.get $nb)))
        (local.set $d (f32x4.splat (f32.load (local.get $blk))))
        (if (i32.eq (local.get $kind) (i32.const 4))
          (then                                                         ;; f = d · q + m
            (local.set $m (f32x4.splat (f32.load offset=4 (local.get $blk))))
            (local.set $q (v128.load offset=8 (local.get $blk)))
            (local.set $lo (v128.and (local.get $q) (i8x16.splat (i32.const 15))))  ;; numbers 0-15
            (local.set $hi (i8x16.shr_u (local.get $q) (i32.const 4)))              ;; numbers 16-31
            (local.set $q (i16x8.extend_low_i8x16_u (local.get $lo)))
            (local.set $f0 (f32x4.add (f32x4.mul (local.get $d) (f32x4.convert_i32x4_u (i32x4.extend_low_i16x8_u (local.get $q)))) (local.get $m)))
            (local.set $f1 (f32x4.add (f32x4.mul (local.get $d) (f32x4.convert_i32x4_u (i32x4.extend_high_i16x8_u (local.get $q)))) (local.get $m)))
            (local.set $q (i16x8.extend_high_i8x16_u (local.get $lo)))
            (local.set $f2 (f32x4.add (f32x4.mul (local.get $d) (f32x4.convert_i32x4_u (i32x4.extend_low_i16x8_u (local.get $q)))) (local.get $m)))
            (local.set $f3 (f32x4.add (f32x4.mul (local.get $d) (f32x4.convert_i32x4_u (i32x4.extend_high_i16x8_u (local.get $q)))) (local.get $m)))
            (local.set $q (i16x8.extend_low_i8x16_u (local.get $hi)))
            (local.set $f4 (f32x4.add (f32x4.mul (local.get $d) (f32x4.convert_i32x4_u (i32x4.extend_low_i16x8_u (local.get $q)))) (local.get $m)))
            (local.set $f5 (f32x4.add (f32x4.mul (local.get $d) (f32x4.convert_i32x4_u (i32x4.extend_high_i16x8_u (local.get $q)))) (local.get $m)))
            (local.set $q (i16x8.extend_high_i8x16_u (local.get $hi)))
            (local.set $f6 (f32x4.add (f32x4.mul (local.get $d) (f32x4.convert_i32x4_u (i32x4.extend_low_i16x8_u (local.get $q)))) (local.get $m)))
            (local.set $f7 (f32x4.add (f32x4.mul (local.get $d) (f32x4.convert_i32x4_u (i32x4.extend_high_i16x8_u (local.get $q)))) (local.get $m))))
          (else                                                         ;; f = d · q
            (local.set $q2 (v128.load offset=4 (local.get $blk)))                ;; numbers 0-15, signed
            (local.set $q (i16x8.extend_low_i8x16_s (local.get $q2)))
            (local.set $f0 (f32x4.mul (local.get $d) (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_s (local.get $q)))))
            (local.set $f1 (f32x4.mul (local.get $d) (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_s (local.get $q)))))
            (local.set $q (i16x8.extend_high_i8x16_s (local.get $q2)))
            (local.set $f2 (f32x4.mul (local.get $d) (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_s (local.get $q)))))
            (local.set $f3 (f32x4.mul (local.get $d) (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_s (local.get $q)))))
            (local.set $q2 (v128.load offset=20 (local.get $blk)))               ;; numbers 16-31
            (local.set $q (i16x8.extend_low_i8x16_s (local.get $q2)))
            (local.set $f4 (f32x4.mul (local.get $d) (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_s (local.get $q)))))
            (local.set $f5 (f32x4.mul (local.get $d) (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_s (local.get $q)))))
            (local.set $q (i16x8.extend_high_i8x16_s (local.get $q2)))
            (local.set $f6 (f32x4.mul (local.get $d) (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_s (local.get $q)))))
            (local.set $f7 (f32x4.mul (local.get $d) (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_s (local.get $q)))))))
        ;; every token: acc[t] += f · X[b][t]   (X[b][t] is 128 contiguous bytes)
        (local.set $pa (local.get $tmp))
        (block $tokens_done (loop $tokens
          (br_if $tokens_done (i32.ge_u (local.get $pa) (local.get $end)))
          (v128.store (local.get $pa)
            (f32x4.add (v128.load (local.get $pa))
              (f32x4.add
                (f32x4.add (f32x4.add (f32x4.mul (local.get $f0) (v128.load offset=0 (local.get $px)))
                                      (f32x4.mul (local.get $f1) (v128.load offset=16 (local.get $px))))
                           (f32x4.add (f32x4.mul (local.get $f2) (v128.load offset=32 (local.get $px)))
                                      (f32x4.mul (local.get $f3) (v128.load offset=48 (local.get $px)))))
                (f32x4.add (f32x4.add (f32x4.mul (local.get $f4) (v128.load offset=64 (local.get $px)))
                                      (f32x4.mul (local.get $f5) (v128.load offset=80 (local.get $px))))
                           (f32x4.add (f32x4.mul (local.get $f6) (v128.load offset=96 (local.get $px)))
                                      (f32x4.mul (local.get $f7) (v128.load offset=112 (local.get $px))))))))
          (local.set $px (i32.add (local.get $px) (i32.const 128)))
          (local.set $pa (i32.add (local.get $pa) (i32.const 16)))
          (br $tokens)))
        (local.set $blk (i32.add (local.get $blk) (local.get $size)))
        (local.set $b (i32.add (local.get $b) (i32.const 1)))
        (br $blocks)))
      ;; Y[t, r] = the four lanes of acc[t], summed
      (local.set $t (i32.const 0))
      (local.set $pa (local.get $tmp))
      (block $sdone (loop $store
        (br_if $sdone (i32.ge_s (local.get $t) (local.get $n)))
        (local.set $v (v128.load (local.get $pa)))
        (f32.store (i32.add (local.get $y) (i32.shl (i32.add (i32.mul (local.get $t) (local.get $rows)) (local.get $r)) (i32.const 2)))
          (f32.add (f32.add (f32x4.extract_lane 0 (local.get $v)) (f32x4.extract_lane 1 (local.get $v)))
                   (f32.add (f32x4.extract_lane 2 (local.get $v)) (f32x4.extract_lane 3 (local.get $v)))))
        (local.set $pa (i32.add (local.get $pa) (i32.const 16)))
        (local.set $t (i32.add (local.get $t) (i32.const 1)))
        (br $store)))
      (local.set $r (i32.add (local.get $r) (i32.const 1)))
      (br $row)))
  )
)
