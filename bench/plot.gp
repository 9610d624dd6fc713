# plot.gp -- bench/results.png from the table bench/run.js writes.
#   gnuplot -e "datafile='build/bench/plot.dat'; outfile='bench/results.png'" bench/plot.gp
# datafile columns: model c_over_ort interp_over_ort arena_kib lower_bound_kib noreuse_kib
# (NaN where a figure is missing).

if (!exists("datafile")) datafile = 'build/bench/plot.dat'
if (!exists("outfile")) outfile = 'bench/results.png'

set terminal pngcairo size 1400,560 font "DejaVu Sans,10"
set output outfile
set termoption noenhanced
set datafile missing "NaN"
set multiplot layout 1,2 title "LightNet vs ONNX Runtime (single thread)" font ",13"

set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set grid ytics
set xtics rotate by -30 nomirror
set key top left

# Left: latency ratio, LightNet / ONNX Runtime, 1 = parity (below is faster).
set title "latency ratio LightNet / ONNX Runtime (below 1: LightNet faster)"
set ylabel "median latency ratio"
set logscale y 2
set yrange [0.0625:*]
set arrow 1 from graph 0, first 1 to graph 1, first 1 nohead lw 2 dt 2 lc rgb "black" front
set arrow 2 from graph 0, first 1.5 to graph 1, first 1.5 nohead lw 1 dt 3 lc rgb "#777777" front
set label 2 "aim 1.5: v2, R18" at graph 0.01, first 1.38 left font ",8" tc rgb "#555555"
# Clustered bars of 2 series with gap 1 sit at x = $0 -+ 1/6: label the C bars.
plot datafile using 2:xtic(1) title "emitted C / ORT" lc rgb "#2b83ba", \
     '' using 3 title "interpreter / ORT" lc rgb "#fdae61", \
     '' using ($0 - 1.0/6):($2 * 1.1):(sprintf("%.2f", $2)) with labels font ",9" notitle
unset arrow 1
unset arrow 2
unset label 2
unset logscale y

# Right: memory, arena vs lower bound vs no reuse.
set title "activation memory (KiB, log scale)"
set ylabel "KiB"
set logscale y 10
set yrange [0.25:*]
plot datafile using 5:xtic(1) title "lower bound" lc rgb "#1a9641", \
     '' using 4 title "arena" lc rgb "#2b83ba", \
     '' using 6 title "no reuse" lc rgb "#d7191c"
unset multiplot
