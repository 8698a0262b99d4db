package dev.memsidecar.core.config;

/**
 * The four memory flags of {@code memory:} in memsidecar.yaml.
 *
 * @param deepagentsMemRead {@code memory.deepagentsMem.read}: the /memories/*.md files may be read
 * @param deepagentsMemWrite {@code memory.deepagentsMem.write}: ... and written
 * @param langMemRead {@code memory.LangMem.read}: record profiles are recalled and readable
 * @param langMemWrite {@code memory.LangMem.write}: record profiles may be written
 */
public record Flags(
    boolean deepagentsMemRead,
    boolean deepagentsMemWrite,
    boolean langMemRead,
    boolean langMemWrite) {

  public static final Flags ALL_ON = new Flags(true, true, true, true);
  public static final Flags ALL_OFF = new Flags(false, false, false, false);
}
