# plot-depth.gp — chapter 9's figure: the residual stream through 64 blocks
# in three arrangements.  mk/block.mk sets data (block-depth's output),
# out and term.
if (term eq 'pdf') {
    set terminal pdfcairo size 16cm,8cm font 'Sans,8'
} else {
    set terminal pngcairo size 1200,600 font 'Sans,13'
}
set output out
set multiplot layout 1, 2
set xlabel 'block'
set grid
set key top left
set title 'rms of the residual stream'
set ylabel 'rms(h)'
plot data using 1:2 with lines lw 2 title 'pre-norm', \
     data using 1:(sqrt(1 + 2 * $1)) with lines dt 2 lw 1 title 'sqrt(1 + 2L)', \
     data using 1:3 with lines lw 2 title 'post-norm', \
     data using 1:4 with lines lw 2 dt 4 title 'DeepNorm'
set title 'share of the input left: mean cos(h, h_0)'
set ylabel 'cos(h, h_0)'
set key top right
set yrange [-0.1:1.05]
plot data using 1:5 with lines lw 2 title 'pre-norm', \
     data using 1:6 with lines lw 2 title 'post-norm', \
     data using 1:7 with lines lw 2 dt 4 title 'DeepNorm'
unset multiplot
