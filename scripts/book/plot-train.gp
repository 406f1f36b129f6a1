# plot-train.gp — chapter 13's figure: the validation loss of every run,
# LayerNorm and RMSNorm, by step and by seconds of training.
# mk/train.mk sets data (train-report figure's output: one block per run,
# step, loss, seconds, 1 for LayerNorm), out and term.
if (term eq 'pdf') {
    set terminal pdfcairo size 16cm,7cm font 'Sans,8'
} else {
    set terminal pngcairo size 1200,520 font 'Sans,12'
}
set output out
stats data using 1 nooutput
runs = STATS_blocks
color(ln) = ln > 0.5 ? 0x2c6fbb : 0xc0392b
set multiplot layout 1, 2
set grid
set ylabel 'validation loss (nats per byte)'
set key top right
set title 'by step'
set xlabel 'step'
plot for [i=0:runs-1] data index i using 1:2:(color($4)) with lines lc rgb variable \
         notitle, \
     keyentry with lines lc rgb '#2c6fbb' title 'LayerNorm', \
     keyentry with lines lc rgb '#c0392b' title 'RMSNorm'
set title 'by time spent training'
set xlabel 'seconds'
plot for [i=0:runs-1] data index i using 3:2:(color($4)) with lines lc rgb variable \
         notitle, \
     keyentry with lines lc rgb '#2c6fbb' title 'LayerNorm', \
     keyentry with lines lc rgb '#c0392b' title 'RMSNorm'
unset multiplot
