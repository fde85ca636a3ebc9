import dev.gmp.*;
import java.util.*;
import java.util.concurrent.*;
import java.util.concurrent.atomic.*;
public class SlowFactory {
  static volatile long sink;
  static void busy(long ms){ long end=System.nanoTime()+ms*1_000_000; long x=0; while(System.nanoTime()<end){x++;} sink+=x; }
  public static void main(String[] a) throws Exception {
    boolean sleep = a.length>0 && a[0].equals("sleep");
    long t0=System.nanoTime();
    List<String> log=Collections.synchronizedList(new ArrayList<>());
    AtomicInteger calls=new AtomicInteger();
    ThreadFactory tf = r -> { int c=calls.incrementAndGet(); String who=Thread.currentThread().getName(); try{Thread.sleep(300);}catch(InterruptedException e){}
      Thread t=new Thread(r,"slow-"+c); t.setDaemon(true); log.add("factory#"+c+" on "+who+" returned@"+(System.nanoTime()-t0)/1_000_000); return t; };
    GmpExecutor ex = GmpExecutor.builder().parallelism(2).threadFactory(tf).build();
    int N=50; long[] start=new long[N]; String[] th=new String[N];
    CountDownLatch done=new CountDownLatch(N);
    long maxExec=0;
    for(int i=0;i<N;i++){ final int id=i; long e0=System.nanoTime(); ex.execute(()->{ start[id]=(System.nanoTime()-t0)/1_000_000; th[id]=Thread.currentThread().getName(); if(sleep){try{Thread.sleep(5);}catch(Exception e){}} else busy(5); done.countDown();}); maxExec=Math.max(maxExec,System.nanoTime()-e0);}
    boolean ok=done.await(15,TimeUnit.SECONDS);
    System.out.println("mode="+(sleep?"sleep5":"busy5")+" maxExecuteCall="+maxExec/1_000_000+"ms done="+ok+" elapsed="+(System.nanoTime()-t0)/1_000_000);
    log.forEach(System.out::println);
    StringBuilder sb=new StringBuilder(); for(int i=0;i<N;i++) sb.append(start[i]).append(':').append(th[i]).append(' ');
    System.out.println(sb);
    System.out.println(ex.stats());
    ex.shutdownNow();
  }
}
