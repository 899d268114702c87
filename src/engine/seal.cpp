/* src/engine/seal.cpp — the one call the analytical timing path
 * (timing_fast.c) needs that SimGrid's C API lacks: seal the platform, so
 * that routes through zones whose routers are completed at sealing (a
 * <cluster>'s router, as the cloud platform's racks have) can be asked for
 * before simgrid_run().  SimGrid seals once (later calls return at once), and
 * simgrid_run() would seal it first thing anyway. */
#include <simgrid/s4u/Engine.hpp>

extern "C" void engine_seal_platform(void);

void engine_seal_platform(void) { simgrid::s4u::Engine::get_instance()->seal_platform(); }
