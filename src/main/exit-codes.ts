/** Exit code for a configuration problem (EX_CONFIG in sysexits.h). */
export const EXIT_CONFIG = 78;
