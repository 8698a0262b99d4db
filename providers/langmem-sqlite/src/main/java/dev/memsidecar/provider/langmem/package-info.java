/**
 * The {@code langmem-sqlite} memory provider: records in SQL tables (an H2 file by default),
 * searched through a per-namespace in-memory index. Start at {@link
 * dev.memsidecar.provider.langmem.LangMemSqliteProvider}.
 */
package dev.memsidecar.provider.langmem;
