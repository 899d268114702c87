/* src/sweep.h — `ccsim sweep`: a base experiment over a grid of values. */
#ifndef CCSIM_SWEEP_H
#define CCSIM_SWEEP_H

/* argv: the arguments after "sweep".  Returns the process exit code. */
int sweep_main(int argc, char **argv);

#endif
