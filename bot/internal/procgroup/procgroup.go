// Package procgroup starts a bot's program in a process group of its own
// and kills that group: a kill then reaches whatever the program started.
// The platform's native bots (exec: programs, 2006 contest entries) use it;
// what each OS can do differs, and is said by each file.
package procgroup
