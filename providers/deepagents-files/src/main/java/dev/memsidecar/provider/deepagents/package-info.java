/**
 * The {@code deepagents-files} memory provider: each namespace's records are entries of one
 * markdown file, the file a DeepAgents agent reads and edits as {@code /memories/<profile>.md}.
 * Start at {@link dev.memsidecar.provider.deepagents.DeepAgentsFilesProvider}; {@link
 * dev.memsidecar.provider.deepagents.MemoryMarkdown} documents the file format.
 */
package dev.memsidecar.provider.deepagents;
