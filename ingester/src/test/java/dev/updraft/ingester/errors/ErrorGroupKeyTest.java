package dev.updraft.ingester.errors;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** An error's top frame drops line, column, directory and query, so the same error in the next bundle is the same group. */
class ErrorGroupKeyTest {

  @Test
  void v8AndHermesFramesKeepTheFunctionAndTheFileName() {
    assertThat(ErrorGroupKey.topFrame("TypeError: x\n    at LoginScreen (http://10.0.2.2:8081/index.bundle?platform=android&dev=true:12:345)\n    at b (x.js:1:1)"))
        .isEqualTo("LoginScreen (index.bundle)");
    assertThat(ErrorGroupKey.topFrame("Error: y\n    at anonymous (address at index.android.bundle:1:98765)")).isEqualTo("anonymous (index.android.bundle)");
    assertThat(ErrorGroupKey.topFrame("Error\n    at /app/main.jsbundle:3:4")).isEqualTo("<anonymous> (main.jsbundle)");
  }

  @Test
  void javaScriptCoreFramesAreReadToo() {
    assertThat(ErrorGroupKey.topFrame("onPress@http://localhost:8081/index.bundle?platform=ios:100:20\nother@x:1:1")).isEqualTo("onPress (index.bundle)");
  }

  @Test
  void theSameErrorInAnotherBundleHasTheSameKeyAndAnotherTypeAnother() {
    String a = ErrorGroupKey.topFrame("TypeError: a\n    at Login (index.bundle:1:2345)");
    String b = ErrorGroupKey.topFrame("TypeError: a\n    at Login (index.bundle:1:9999)");
    assertThat(ErrorGroupKey.key("TypeError", a)).isEqualTo(ErrorGroupKey.key("TypeError", b)).hasSize(32);
    assertThat(ErrorGroupKey.key("RangeError", a)).isNotEqualTo(ErrorGroupKey.key("TypeError", a));
  }

  @Test
  void noStackGivesAnEmptyFrame() {
    assertThat(ErrorGroupKey.topFrame(null)).isEmpty();
    assertThat(ErrorGroupKey.topFrame("just a message")).isEmpty();
  }
}
