package dev.updraft.cli;

/** A command that does something (a leaf of the command tree); a group such as {@code apps} is not one. */
interface Action {
  /** Runs the command with the parsed flags; a {@link CliException} is the one line the user sees. */
  void run(Session s) throws CliException;
}
