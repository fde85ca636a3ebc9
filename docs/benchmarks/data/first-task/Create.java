public class Create {
  public static void main(String[] a) throws Exception {
    Runnable warm = () -> {}; warm.run();
    long t0 = System.nanoTime();
    var ex = dev.gmp.GmpExecutor.create(2);
    long t1 = System.nanoTime();
    System.out.println("create " + (t1 - t0) / 1000 + " us");
    ex.shutdown();
  }
}
