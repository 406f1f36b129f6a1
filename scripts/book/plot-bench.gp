# plot-bench.gp — the benchmark figure; scripts/book/plot-bench.sh sets out,
# term, t1, tn (data files), have1, ymax, tmax, nshapes, shapes and source.
if (term eq 'pdf') {
    set terminal pdfcairo size 16cm,17cm font 'Sans,8'
} else {
    set terminal pngcairo size 1200,1275 font 'Sans,13'
}
set output out
set datafile missing '-'
set style data histograms
set style histogram errorbars gap 1 lw 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set yrange [0:ymax]
set ylabel 'fraction of copy bandwidth'
set xtics rotate by 40 right nomirror noenhanced
set bmargin 11
set key top left noenhanced
set grid ytics
# The roof: a kernel at 1.0 moves its bytes as fast as a plain copy.
set arrow 1 from graph 0, first 1 to graph 1, first 1 nohead dt 2 lw 1.5 front

panels = (have1 && tmax > 1) ? 2 : 1
set multiplot layout panels, 1 title sprintf('normlab bench: %s', source) noenhanced
if (have1) {
    set title '1 thread (bars: median of paired samples; whiskers: 10th to 90th percentile)'
    plot for [i=0:nshapes-1] t1 using 2+3*i:3+3*i:4+3*i:xtic(1) title word(shapes, i+1)
}
if (tmax > 1) {
    set title sprintf('%d threads (threaded implementations and the peer)', tmax)
    plot for [i=0:nshapes-1] tn using 2+3*i:3+3*i:4+3*i:xtic(1) title word(shapes, i+1)
}
unset multiplot
