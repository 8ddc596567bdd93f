// cbot is the C twin of testdata/gobot, built with clang --target=wasm32-wasi.
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
__attribute__((import_module("arena"), import_name("fuel_left"))) long long fuel_left(void);
int main(void) {
  char line[64];
  if (!fgets(line, sizeof line, stdin)) return 1;
  int n = atoi(line);
  char *composite = calloc(n, 1);
  int count = 0, last = 0;
  for (int i = 2; i < n; i++) {
    if (composite[i]) continue;
    count++; last = i;
    for (long long j = (long long)i * i; j < n; j += i) composite[j] = 1;
  }
  char buf[4096]; memset(buf, 'x', sizeof buf); memcpy(buf + 1, buf, 1000);
  printf("{\"count\":%d,\"last\":%d}\n", count, last);
  fprintf(stderr, "fuel_left %lld\n", fuel_left());
  return 0;
}
