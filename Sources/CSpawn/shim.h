// glibc's posix_spawn extension that Swift's Glibc module leaves out (it is declared only under
// _GNU_SOURCE). It is in glibc since 2.34; Debian 12 ships 2.36.
#include <spawn.h>

/// Closes every descriptor from `from` up in the child, before it runs the program.
extern int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *actions, int from);
