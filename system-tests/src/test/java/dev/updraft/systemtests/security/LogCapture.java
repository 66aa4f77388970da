package dev.updraft.systemtests.security;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.classic.spi.StackTraceElementProxy;
import ch.qos.logback.core.AppenderBase;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.LoggerFactory;

/**
 * Everything logged in this JVM (every logger, every level) while attached: messages with their
 * arguments, MDC, and exception messages and stack traces, as text a test can search for secrets.
 * Thread-safe.
 */
final class LogCapture extends AppenderBase<ILoggingEvent> implements AutoCloseable {
  private final List<String> lines = new ArrayList<>();
  private final Logger root;
  private final ch.qos.logback.classic.Level previous;

  private LogCapture() {
    LoggerContext ctx = (LoggerContext) LoggerFactory.getILoggerFactory();
    root = ctx.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    previous = root.getLevel();
    setContext(ctx);
    setName("security-log-capture");
    start();
  }

  /**
   * Starts capturing. The root level goes to TRACE meanwhile, so that debug logging (which an operator may
   * turn on) is searched too; loggers the test configuration quiets stay quiet.
   */
  static LogCapture capture() {
    LogCapture c = new LogCapture();
    c.root.addAppender(c);
    c.root.setLevel(ch.qos.logback.classic.Level.TRACE);
    return c;
  }

  @Override
  protected synchronized void append(ILoggingEvent e) {
    StringBuilder sb = new StringBuilder();
    sb.append(e.getLevel()).append(' ').append(e.getLoggerName()).append(' ').append(e.getFormattedMessage());
    if (e.getMDCPropertyMap() != null && !e.getMDCPropertyMap().isEmpty()) {
      sb.append(' ').append(e.getMDCPropertyMap());
    }
    for (IThrowableProxy t = e.getThrowableProxy(); t != null; t = t.getCause()) {
      sb.append('\n').append(t.getClassName()).append(": ").append(t.getMessage());
      for (StackTraceElementProxy s : t.getStackTraceElementProxyArray()) {
        sb.append("\n  ").append(s.getSTEAsString());
      }
    }
    lines.add(sb.toString());
  }

  /** What was captured so far. */
  synchronized String text() {
    return String.join("\n", lines);
  }

  synchronized int lines() {
    return lines.size();
  }

  @Override
  public void close() {
    root.detachAppender(this);
    root.setLevel(previous);
    stop();
  }
}
