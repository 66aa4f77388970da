package dev.updraft.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A flag table and the configuration whose flag set is that table's names may be loaded in either order: each
 * pair, started from either side in a fresh class loader, yields a table ({@code updraft ingest --help} loads the
 * table first, a start loads the configuration first).
 */
class FlagTablesInitTest {
  private static final List<String[]> PAIRS = List.of(
      new String[] {"dev.updraft.controlplane.config.ControlPlaneFlags", "dev.updraft.controlplane.config.ControlPlaneConfig"},
      new String[] {"dev.updraft.edge.EdgeFlags", "dev.updraft.edge.EdgeConfig"},
      new String[] {"dev.updraft.ingester.IngesterFlags", "dev.updraft.ingester.IngesterConfig"},
      new String[] {"dev.updraft.launcher.DevFlags", "dev.updraft.launcher.DevConfig"},
      new String[] {"dev.updraft.controlplane.insights.InsightsExtension", "dev.updraft.controlplane.config.ControlPlaneFlags"});

  @Test
  void eachTableAndItsConfigurationInitializeInEitherOrder() throws Exception {
    for (String[] pair : PAIRS) {
      for (int first = 0; first < 2; first++) {
        try (URLClassLoader fresh = new URLClassLoader(classpath(), ClassLoader.getPlatformClassLoader())) {
          Class.forName(pair[first], true, fresh);
          Class<?> other = Class.forName(pair[1 - first], true, fresh);
          assertThat(other).as("%s after %s", pair[1 - first], pair[first]).isNotNull();
          Class<?> table = Class.forName(pair[0], false, fresh);
          java.lang.reflect.Field f = field(table);
          if (f != null) {
            f.setAccessible(true);
            assertThat(f.get(null)).as("%s.TABLE with %s loaded first", pair[0], pair[first]).isNotNull();
          }
        }
      }
    }
  }

  private static java.lang.reflect.Field field(Class<?> c) {
    try {
      return c.getDeclaredField("TABLE");
    } catch (NoSuchFieldException e) {
      return null;
    }
  }

  private static URL[] classpath() throws MalformedURLException {
    List<URL> urls = new ArrayList<>();
    for (String p : System.getProperty("java.class.path").split(File.pathSeparator)) {
      urls.add(new File(p).toURI().toURL());
    }
    return urls.toArray(new URL[0]);
  }
}
