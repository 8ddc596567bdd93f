/* A 2006-style entry: reads the input file named by argv[1], draws the first
   undrawn unit edge (horizontal edges row by row, then vertical ones), and
   keeps a count of its turns in first.temp in its working directory. Like
   many entries of its time, main returns no value. */
#include <stdio.h>
#include <string.h>

int h[10][10], v[10][10];

main(int argc, char **argv)
{
	FILE *f = fopen(argv[1], "r");
	int me, rows, cols, p, s, r, c, n = 0;
	float t;
	char a[8], b[8];
	fscanf(f, "%d %d %d", &me, &rows, &cols);
	fscanf(f, "%d %d %f", &p, &s, &t);
	fscanf(f, "%d %d %f", &p, &s, &t);
	while (fscanf(f, "%d %7s %7s", &p, a, b) == 3) {
		int c1 = a[0] - 'A', r1 = atoi(a + 1) - 1, c2 = b[0] - 'A', r2 = atoi(b + 1) - 1;
		if (r1 == r2)
			for (c = c1; c < c2; c++) h[r1][c] = 1;
		else
			for (r = r1; r < r2; r++) v[r][c1] = 1;
	}
	f = fopen("first.temp", "r");
	if (f) { fscanf(f, "%d", &n); fclose(f); }
	f = fopen("first.temp", "w");
	fprintf(f, "%d\n", n + 1);
	fclose(f);
	for (r = 0; r <= rows; r++)
		for (c = 0; c < cols; c++)
			if (!h[r][c]) { printf("%c%d %c%d\n", 'A' + c, r + 1, 'A' + c + 1, r + 1); return; }
	for (r = 0; r < rows; r++)
		for (c = 0; c <= cols; c++)
			if (!v[r][c]) { printf("%c%d %c%d\n", 'A' + c, r + 1, 'A' + c, r + 2); return; }
}
