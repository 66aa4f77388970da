package dev.updraft.cli;

import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * Flag value converters. Their messages finish the sentence that starts with the flag's name
 * ({@code --limit must be a whole number: got 'x'}); {@link ParseErrors} puts the two together.
 */
final class Values {
  private Values() {}

  /** A whole number. */
  static final class WholeNumber implements ITypeConverter<Integer> {
    @Override
    public Integer convert(String v) {
      try {
        return Integer.parseInt(v.trim());
      } catch (NumberFormatException e) {
        throw new TypeConversionException("must be a whole number: got '" + v + "'");
      }
    }
  }

  /** A value that is not empty (an empty {@code --app ""} is as good as none). */
  static final class Text implements ITypeConverter<String> {
    @Override
    public String convert(String v) {
      if (v.isEmpty()) {
        throw new TypeConversionException("is required and cannot be empty");
      }
      return v;
    }
  }
}
