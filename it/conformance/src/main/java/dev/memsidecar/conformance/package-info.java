/**
 * The provider conformance kit: {@link dev.memsidecar.conformance.MemoryStoreConformance}, the
 * JUnit 5 suite every {@link dev.memsidecar.api.MemoryProvider} extends. Shipped as a normal jar
 * ({@code dev.memsidecar:memsidecar-conformance}) so third-party providers use it as a test
 * dependency.
 */
package dev.memsidecar.conformance;
