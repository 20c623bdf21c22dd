// Put first on the include path by .ci/run's no-MPFR job: any use of gmp.h there is an error.
#error "gmp.h included in a build configured without MPFR (TCNUM_WITH_MPFR=OFF)"
