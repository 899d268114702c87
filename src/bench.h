/* src/bench.h — `ccsim bench`: compressor kernel throughput. */
#ifndef CCSIM_BENCH_H
#define CCSIM_BENCH_H

/* argv after "bench"; returns the exit status. */
int bench_main(int argc, char **argv);

#endif
