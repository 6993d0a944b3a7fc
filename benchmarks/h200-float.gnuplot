# The chart in README.md: the power-of-two rows of h200-float.csv (default, peers, one configuration per tutorial
# kernel), in TFLOP/s. Redraw from this folder: gnuplot h200-float.gnuplot
set terminal pngcairo size 1400,800 font ",11"
set termoption noenhanced
set output "h200-float.png"
set title "SGEMM C = A * B (column-major, NN) on an NVIDIA H200, whole calls, one run of examples/benchmark, 2026-11-22"
set xlabel "M = N = K"
set ylabel "TFLOP/s"
set logscale x 2
set grid
set key outside right top Left reverse
set yrange [0:55]
set xtics (256, 512, 1024, 2048, 4096, 8192)
set xrange [220:9500]
$d0 << EOD
256 1.817620
512 10.497100
1024 28.533100
2048 42.545900
4096 45.829600
8192 47.166800
EOD
$d1 << EOD
256 2.269530
512 13.399500
1024 38.234900
2048 50.313400
4096 51.278400
8192 51.255000
EOD
$d2 << EOD
256 2.236720
512 10.269900
1024 15.474400
2048 27.278100
4096 30.409700
8192 33.857700
EOD
$d3 << EOD
256 0.905951
512 4.243110
1024 18.476800
2048 42.652300
4096 45.815000
8192 47.099800
EOD
$d4 << EOD
256 0.480194
512 2.191120
1024 9.529910
2048 18.951500
4096 25.829900
8192 29.946500
EOD
$d5 << EOD
256 0.642906
512 2.891990
1024 12.493900
2048 30.664200
4096 32.197300
8192 33.226800
EOD
$d6 << EOD
256 0.733269
512 5.646130
1024 20.221900
2048 24.339000
4096 26.126700
8192 27.186500
EOD
$d7 << EOD
256 0.896694
512 5.382160
1024 10.501100
2048 11.269500
4096 11.708300
EOD
$d8 << EOD
256 1.733520
512 7.061770
1024 11.261900
2048 12.222700
4096 12.656400
EOD
$d9 << EOD
256 1.756860
512 5.105350
1024 6.131270
2048 6.461770
4096 6.501300
EOD
$d10 << EOD
256 1.718300
512 4.376200
1024 5.146050
2048 5.411880
4096 5.273710
EOD
$d11 << EOD
256 0.157799
512 0.171614
1024 0.265911
2048 0.187510
4096 0.238955
EOD
plot $d0 using 1:2 with linespoints lc rgb "#d62728" lw 4  pt 1 title "tilegemm default (auto): prefetch, chosen per shape", \
     $d1 using 1:2 with linespoints lc rgb "#000000" lw 3 dashtype 2 pt 2 title "cuBLAS SGEMM (pedantic math, no TF32)", \
     $d2 using 1:2 with linespoints lc rgb "#1f77b4" lw 3 dashtype 2 pt 3 title "CLBlast 1.5.3 (Debian, untuned)", \
     $d3 using 1:2 with linespoints lc rgb "#ff7f0e" lw 1.5  pt 4 title "kernel 9: prefetch 128x128x8 8x8 v4", \
     $d4 using 1:2 with linespoints lc rgb "#9467bd" lw 1.5  pt 5 title "kernel 10: 160x160x16 10x10 v2 (packed)", \
     $d5 using 1:2 with linespoints lc rgb "#8c564b" lw 1.5  pt 6 title "kernel 7: vector loads 128x128x16 8x8 v4", \
     $d6 using 1:2 with linespoints lc rgb "#e377c2" lw 1.5  pt 7 title "kernel 6: register blocking 64x64x16 4x4", \
     $d7 using 1:2 with linespoints lc rgb "#7f7f7f" lw 1.5  pt 8 title "kernel 4: wide types 32x32x32 v8", \
     $d8 using 1:2 with linespoints lc rgb "#bcbd22" lw 1.5  pt 9 title "kernel 3: more work per thread 32x32x32 1x8", \
     $d9 using 1:2 with linespoints lc rgb "#17becf" lw 1.5  pt 10 title "kernel 2: local tiles 16", \
     $d10 using 1:2 with linespoints lc rgb "#2ca02c" lw 1.5  pt 11 title "kernel 1: naive 16x16", \
     $d11 using 1:2 with linespoints lc rgb "#aaaaaa" lw 2 dashtype 3 pt 12 title "Eigen 3.4 on the 16 host cores"
