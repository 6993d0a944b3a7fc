/* mpi/fake_scalapack: a stand-in for the CPU ScaLAPACK's pilaenv_, answering 48 for 'D' and 40 otherwise (not the
   reference's 32), so that a test can tell the drop-in forwarded to it. */
int pilaenv_(const int* ictxt, const char* prec);

int pilaenv_(const int* ictxt, const char* prec) {
  (void)ictxt;
  return *prec == 'D' ? 48 : 40;
}
