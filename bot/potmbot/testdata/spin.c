/* Never answers: burns CPU until it is killed. */
int main(void) { volatile unsigned long n = 0; for (;;) n++; }
