package dev.updraft.load;

/**
 * A {@code main} for the load module alone: the generator starts the baseline server as a child JVM
 * with it ({@code LoadMain baseline ...}), so the baseline's CPU is measured per process like the real
 * server's. Everything else goes through {@link LoadCommand#run}.
 */
public final class LoadMain {
  private LoadMain() {}

  public static void main(String[] args) {
    int status = LoadCommand.run(args, System.getenv(), System.out, System.err);
    System.out.flush();
    System.exit(status);
  }
}
