# plot-gpt2-bench.gp — chapter 12's second figure: what the converted
# GPT-2's norms cost per token, and what deferring the scale into the
# matmul saves.  mk/gpt2.mk sets data (gpt2-bench figure's output), out
# and term.
if (term eq 'pdf') {
    set terminal pdfcairo size 16cm,7.5cm font 'Sans,8'
} else {
    set terminal pngcairo size 1200,560 font 'Sans,12'
}
set output out
set multiplot layout 1, 2
set grid ytics
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set xtics nomirror rotate by -20
set title "norm time per token, whole model (2L+1 norms, T=1024, 1 thread, p10)"
set ylabel 'microseconds per token'
set yrange [0:*]
set offsets 0, 0, graph 0.45, 0
set key top left
plot data index 0 using 2:xtic(1) title 'LayerNorm (layernorm\_best)', \
     '' index 0 using 3 title 'RMSNorm (rmsnorm\_best, gamma = 1)', \
     '' index 0 using 4 title 'LayerNorm (plain C)', \
     '' index 0 using 5 title 'RMSNorm (plain C)', \
     '' index 0 using 6 title 'CRMSNorm (plain C)'
set title "GPT-2 124M layers (C=768), 1 thread"
set ylabel 'percent of the matmul alone'
unset offsets
set logscale y
set format y '10^{%L}'
set xtics rotate by -30
set key top left
set yrange [1e-3:1e5]
plot data index 1 using 2:xtic(1) title 'RMSNorm pass (the most FlashNorm saves)', \
     '' index 1 using 3 title 'matmul alone: p10..p90 spread', \
     '' index 1 using 4 title '|FlashNorm - RMSNorm then matmul|'
unset multiplot
