package dev.updraft.events;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Every event type reaches its own method of {@link EventHandler}, with the envelope's payload: the folds that
 * implement the handler therefore see every event, and a new type cannot be left out of the dispatch.
 */
class EventHandlerTest {

  /** The handler's per-type methods: every method but {@code dispatch}. */
  private static List<Method> typeMethods() {
    return Arrays.stream(EventHandler.class.getDeclaredMethods())
        .filter(m -> !m.isDefault() && !m.isSynthetic())
        .collect(Collectors.toList());
  }

  @Test
  void theHandlerHasOneMethodForEveryPermittedPayloadRecord() {
    Set<Class<?>> permitted = Set.of(EventPayload.class.getPermittedSubclasses());
    List<Class<?>> handled = new ArrayList<>();
    for (Method m : typeMethods()) {
      assertThat(m.getParameterTypes()).as(m.getName()).hasSize(2);
      assertThat(m.getParameterTypes()[0]).as(m.getName()).isEqualTo(EventEnvelope.class);
      handled.add(m.getParameterTypes()[1]);
    }
    assertThat(handled).doesNotHaveDuplicates();
    assertThat(Set.copyOf(handled)).isEqualTo(permitted);
    assertThat(permitted).hasSize(EventType.values().length);
  }

  @ParameterizedTest
  @EnumSource(EventType.class)
  void dispatchCallsTheMethodOfTheEventsTypeWithItsPayload(EventType type) throws IOException {
    EventEnvelope e = golden(type);
    List<Method> called = new ArrayList<>();
    List<Object[]> args = new ArrayList<>();
    InvocationHandler recorder = (proxy, method, a) -> {
      if (method.isDefault()) {
        return InvocationHandler.invokeDefault(proxy, method, a);
      }
      called.add(method);
      args.add(a);
      return method.getName();
    };
    @SuppressWarnings("unchecked")
    EventHandler<String> h = (EventHandler<String>) Proxy.newProxyInstance(
        EventHandler.class.getClassLoader(), new Class<?>[] {EventHandler.class}, recorder);

    String result = h.dispatch(e);

    assertThat(called).hasSize(1);
    assertThat(called.get(0).getParameterTypes()[1]).isEqualTo(e.payload().getClass());
    assertThat(args.get(0)[0]).isSameAs(e);
    assertThat(args.get(0)[1]).isSameAs(e.payload());
    assertThat(result).isEqualTo(called.get(0).getName());
  }

  /** The hand-written golden file of {@code type}, decoded. */
  private static EventEnvelope golden(EventType type) throws IOException {
    try (InputStream in = EventHandlerTest.class.getResourceAsStream("/golden/v1/" + type.wireName() + ".json")) {
      assertThat(in).as("golden file of " + type.wireName()).isNotNull();
      Decoded d = EventCodec.decode(in.readAllBytes());
      assertThat(d).isInstanceOf(Decoded.Known.class);
      return ((Decoded.Known) d).envelope();
    }
  }
}
