/* mpi/pilaenv_symbol: calls pilaenv_ as PBLAS does (from C, no hidden string length) and compares its answer with
   argv[1]; with argv[2], also that stderr said argv[2] exactly once. Linked to the drop-in first. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int pilaenv_(const int* ictxt, const char* prec);

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: pilaenv_symbol EXPECTED [STDERR_LINE]\n");
    return 2;
  }
  const int expected = atoi(argv[1]);
  /* stderr into a temporary file, read back below. */
  FILE* said = tmpfile();
  const int saved_stderr = dup(2);
  if (said == NULL || saved_stderr < 0 || dup2(fileno(said), 2) < 0) {
    perror("pilaenv_symbol: stderr");
    return 2;
  }
  const int context = 0;
  int failures = 0;
  for (int call = 0; call < 3; ++call) { /* the answer must not change between calls */
    const int got = pilaenv_(&context, "D");
    if (got != expected) {
      printf("pilaenv_ call %d gave %d, expected %d\n", call, got, expected);
      ++failures;
    }
  }
  fflush(stderr);
  dup2(saved_stderr, 2);
  char text[4096] = "";
  rewind(said);
  const size_t length = fread(text, 1, sizeof text - 1, said);
  text[length] = '\0';
  fputs(text, stderr);
  const char* wanted = argc > 2 ? argv[2] : NULL;
  const char* first = wanted ? strstr(text, wanted) : NULL;
  if (wanted && (first == NULL || strstr(first + 1, wanted) != NULL)) {
    printf("stderr said \"%s\" %s, not once\n", wanted, first == NULL ? "never" : "more than once");
    ++failures;
  } else if (!wanted && length > 0) {
    printf("stderr said something where nothing was expected\n");
    ++failures;
  }
  printf("pilaenv_: %s\n", failures == 0 ? "as expected" : "WRONG");
  return failures == 0 ? 0 : 1;
}
