/* Prints half a move, then dies of a segmentation fault. */
#include <stdio.h>
int main(void) { printf("A1 "); fflush(stdout); *(volatile int *)0 = 1; return 0; }
