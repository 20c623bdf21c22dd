// Put first on the include path by .ci/run's no-MPFR job: any use of mpfr.h there is an error.
#error "mpfr.h included in a build configured without MPFR (TCNUM_WITH_MPFR=OFF)"
