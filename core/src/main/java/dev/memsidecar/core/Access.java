package dev.memsidecar.core;

/**
 * What a call wants to do with a profile; {@link AccessPolicy#resolve} decides whether it may.
 *
 * <table>
 *   <caption>Which flag each access answers to</caption>
 *   <tr><th>access</th><th>used by</th><th>needs</th></tr>
 *   <tr><td>READ</td><td>GetMemory, ListMemories</td><td>LangMem.read</td></tr>
 *   <tr><td>WRITE</td><td>Remember, ForgetMemory, EndRun</td>
 *       <td>LangMem.write, a request that is not read-only</td></tr>
 *   <tr><td>RECALL</td><td>Search, BeginRun</td><td>LangMem.read (else no hits)</td></tr>
 *   <tr><td>FILES_READ</td><td>ListMemoryFiles, ReadMemoryFile, BeginRun</td>
 *       <td>deepagentsMem.read</td></tr>
 *   <tr><td>FILES_WRITE</td><td>WriteMemoryFile, EditMemoryFile</td>
 *       <td>deepagentsMem.write, a request that is not read-only</td></tr>
 * </table>
 *
 * Every access also needs the profile to be enabled.
 */
public enum Access {
  READ,
  WRITE,
  RECALL,
  FILES_READ,
  FILES_WRITE;

  /** Whether this access changes something (and so a read-only request may not have it). */
  public boolean writes() {
    return this == WRITE || this == FILES_WRITE;
  }

  /** Whether this access is to the memory file rather than the records. */
  public boolean files() {
    return this == FILES_READ || this == FILES_WRITE;
  }
}
