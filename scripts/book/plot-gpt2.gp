# plot-gpt2.gp — chapter 12's figure: how far each converted GPT-2's
# logits are from the original's, and what each step left out costs.
# mk/gpt2.mk sets data (gpt2-equiv figure's output), out and term.
if (term eq 'pdf') {
    set terminal pdfcairo size 16cm,7cm font 'Sans,8'
} else {
    set terminal pngcairo size 1200,520 font 'Sans,12'
}
set output out
set multiplot layout 1, 2
set logscale y
set format y '10^{%L}'
set grid ytics
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set xtics nomirror rotate by -25
set title 'logits against the original (double): max |error| / max |logit|'
set yrange [1e-17:1]
set key top left
plot data index 0 using 2:xtic(1) title 'float', '' index 0 using 3 title 'double'
set title 'one step left out (double): the same error'
set yrange [1e-2:10]
set xtics rotate by -35
unset key
plot data index 1 using 2:xtic(1) lc rgb '#c0392b'
unset multiplot
