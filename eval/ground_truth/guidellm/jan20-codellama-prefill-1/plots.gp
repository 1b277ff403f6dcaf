# optional: gnuplot plots.gp redraws the charts as gnuplot-*.svg
set terminal svg size 520,460 font 'sans,11'
set logscale xy
set key top left
set grid
set xlabel 'measured'
set ylabel 'predicted'
set output 'gnuplot-ttft_mean_ms.svg'
set title 'TTFT mean ms: predicted vs measured'
plot 'ttft_mean_ms.dat' using 1:($3==0?$2:1/0) with points pt 7 title 'steady', 'ttft_mean_ms.dat' using 1:($3==1?$2:1/0) with points pt 6 title 'overloaded', x with lines lt 0 title 'y = x'
set output 'gnuplot-itl_mean_ms.svg'
set title 'ITL mean ms: predicted vs measured'
plot 'itl_mean_ms.dat' using 1:($3==0?$2:1/0) with points pt 7 title 'steady', 'itl_mean_ms.dat' using 1:($3==1?$2:1/0) with points pt 6 title 'overloaded', x with lines lt 0 title 'y = x'
set output 'gnuplot-e2e_mean_ms.svg'
set title 'E2E mean ms: predicted vs measured'
plot 'e2e_mean_ms.dat' using 1:($3==0?$2:1/0) with points pt 7 title 'steady', 'e2e_mean_ms.dat' using 1:($3==1?$2:1/0) with points pt 6 title 'overloaded', x with lines lt 0 title 'y = x'
set output 'gnuplot-e2e_p90_ms.svg'
set title 'E2E p90 ms: predicted vs measured'
plot 'e2e_p90_ms.dat' using 1:($3==0?$2:1/0) with points pt 7 title 'steady', 'e2e_p90_ms.dat' using 1:($3==1?$2:1/0) with points pt 6 title 'overloaded', x with lines lt 0 title 'y = x'
unset logscale
set output 'gnuplot-ape.svg'
set title 'APE per steady-state row'
set xlabel 'row'
set ylabel 'APE %'
set style data histograms
set style fill solid 0.8
set boxwidth 0.9
plot 'ape.dat' using 2 title 'TTFT mean', '' using 3 title 'ITL mean', '' using 4 title 'E2E mean'
