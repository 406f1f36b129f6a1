# plot-bench.gp — the benchmark figure; scripts/book/plot-bench.sh sets out,
# term, t1, tn (data files), have1, ymax, tmax, nshapes, shapes, source and
# lmarg (the left margin, in characters, for the longest name).
#
# Horizontal bars: one row per implementation, its name written level
# beside it (25 names on a slant under the bars were hard to match with
# their bars), one bar per shape in the row. ymax is the length of the
# value axis, which is horizontal here.
n1 = 0; nn = 0
# Count rows by their line number: a row with no number in its first
# shape (a peer timed on fewer shapes) is still a row.
if (have1) { stats t1 using 0 nooutput; n1 = STATS_records }
if (tmax > 1) { stats tn using 0 nooutput; nn = STATS_records }
rows = n1 + nn

# Each panel needs its rows plus room for its title, value axis and label
# (ov rows' worth), so panel heights follow rows + ov, not rows alone.
ov = 5.5
panels = (n1 > 0) + (nn > 0)
units = rows + ov * panels + 1.5
if (term eq 'pdf') {
    set terminal pdfcairo size 16cm,(0.5 * units)cm font 'Sans,8'
} else {
    set terminal pngcairo size 1100,(32 * units) font 'Sans,13'
}
set output out
set datafile missing '-'
set style fill solid 0.85 border -1
set xrange [0:ymax]
set yrange [*:*] reverse
set offsets 0, 0, 0.6, 0.6
set xlabel 'fraction of copy bandwidth (copy time / kernel time)'
set xtics 0.2 nomirror
set ytics nomirror noenhanced scale 0
set grid xtics lt 1 lc rgb '#d0d0d0' lw 0.6
set key top right noenhanced box opaque samplen 1.5
# The copy: a kernel at 1 moves its bytes exactly as fast as the copy.
# Above 1 means faster than this copy of the same bytes, not faster than
# memory (chapter 6 says when and why that happens).
set arrow 1 from first 1, graph 0 to first 1, graph 1 nohead dt 2 lw 1.5 front
set label 1 'as fast as the copy ' at first 1, graph 0.015 right front

bar = 0.8 / nshapes
ypos(row, j) = row + (j - (nshapes - 1) / 2.0) * bar
h1 = (n1 > 0 ? (n1 + ov) / units : 0)
hn = (nn > 0 ? (nn + ov) / units : 0)
set multiplot title sprintf('normlab bench: %s', source) noenhanced
set lmargin lmarg; set rmargin 3
if (have1) {
    set origin 0, hn
    set size 1, h1
    set tmargin 1.6; set bmargin 3
    set title '1 thread: median of paired samples, whiskers 10th to 90th percentile'
    plot for [j=0:nshapes-1] t1 using (column(2+3*j)/2):(ypos($0, j)):(0):(column(2+3*j)):(ypos($0, j) - bar/2):(ypos($0, j) + bar/2) \
             with boxxyerror lc j+1 title word(shapes, j+1), \
         for [j=0:nshapes-1] t1 using (column(2+3*j)):(ypos($0, j)):(column(3+3*j)):(column(4+3*j)) \
             with xerrorbars pt -1 lc rgb 'black' notitle, \
         t1 using (0):0:ytic(1) with points pt -1 notitle
}
if (tmax > 1) {
    set origin 0, 0
    set size 1, hn
    set tmargin 2.6; set bmargin 3
    set title sprintf('%d threads: the threaded implementations and the peer', tmax)
    unset key
    unset label 1
    plot for [j=0:nshapes-1] tn using (column(2+3*j)/2):(ypos($0, j)):(0):(column(2+3*j)):(ypos($0, j) - bar/2):(ypos($0, j) + bar/2) \
             with boxxyerror lc j+1 title word(shapes, j+1), \
         for [j=0:nshapes-1] tn using (column(2+3*j)):(ypos($0, j)):(column(3+3*j)):(column(4+3*j)) \
             with xerrorbars pt -1 lc rgb 'black' notitle, \
         tn using (0):0:ytic(1) with points pt -1 notitle
}
unset multiplot
