package dev.memsidecar.provider.langmem;

import dev.memsidecar.api.Embedder;
import dev.memsidecar.api.MemoryRecord;
import dev.memsidecar.api.MemoryStore;
import dev.memsidecar.api.Namespace;
import dev.memsidecar.api.ProviderContext;
import dev.memsidecar.jdbc.h2.H2Dialect;
import dev.memsidecar.toolkit.HashEmbedder;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/** Shared helpers for this module's tests. */
final class Fixtures {
  static final Instant T0 = Instant.parse("2025-03-01T08:00:00.123456789Z");

  private Fixtures() {}

  static MemoryStore open(Path dir) {
    return open(dir, Map.of());
  }

  static MemoryStore open(Path dir, Map<String, String> settings) {
    return new LangMemSqliteProvider()
        .open(new ProviderContext("workspace", dir, settings, new HashEmbedder()));
  }

  static MemoryStore open(Path dir, Embedder embedder) {
    return open(dir, Map.of(), embedder);
  }

  static MemoryStore open(Path dir, Map<String, String> settings, Embedder embedder) {
    return new LangMemSqliteProvider()
        .open(new ProviderContext("workspace", dir, settings, embedder));
  }

  /** A plain JDBC connection to the default database in {@code dir}, as the store opens it. */
  static Connection connect(Path dir) throws SQLException {
    return DriverManager.getConnection(
        new H2Dialect().connectionUrl(LangMemSqliteProvider.defaultUrl(dir), null));
  }

  /** An active semantic record created and updated at {@code time}. */
  static MemoryRecord record(Namespace ns, String id, String content, Instant time) {
    return MemoryRecord.builder()
        .namespace(ns)
        .id(id)
        .profile("workspace")
        .content(content)
        .times(time)
        .build();
  }

  static MemoryRecord record(Namespace ns, String id, String content) {
    return record(ns, id, content, T0);
  }

  /**
   * A stand-in for a model embedder: named as given, as many dimensions as the hash embedder but
   * other vectors (the hash embedder's of the text reversed), so vectors of the two must never be
   * mixed. Records every {@link #embedAll} call's size, and fails the call after {@code
   * embedAllCallsBeforeFailing} of them, as a crash in the middle of re-embedding would stop it.
   */
  static final class ModelEmbedder implements Embedder {
    private final String name;
    private final int embedAllCallsBeforeFailing;
    private final HashEmbedder hash = new HashEmbedder();
    private final List<Integer> embedAllSizes = Collections.synchronizedList(new ArrayList<>());

    ModelEmbedder(String name) {
      this(name, Integer.MAX_VALUE);
    }

    ModelEmbedder(String name, int embedAllCallsBeforeFailing) {
      this.name = name;
      this.embedAllCallsBeforeFailing = embedAllCallsBeforeFailing;
    }

    /** The number of texts of each {@link #embedAll} call so far, failed ones included. */
    List<Integer> embedAllSizes() {
      return List.copyOf(embedAllSizes);
    }

    @Override
    public String name() {
      return name;
    }

    @Override
    public int dimensions() {
      return hash.dimensions();
    }

    @Override
    public float[] embed(String text) {
      return hash.embed(new StringBuilder(text).reverse().toString());
    }

    @Override
    public List<float[]> embedAll(List<String> texts) {
      embedAllSizes.add(texts.size());
      if (embedAllSizes.size() > embedAllCallsBeforeFailing) {
        throw new IllegalStateException("embedder '" + name + "' stopped (as if killed)");
      }
      return Embedder.super.embedAll(texts);
    }
  }

  /** The hash embedder, whose batches (the store's vector worker) wait until it is opened. */
  static final class GatedEmbedder implements Embedder {
    private final HashEmbedder delegate = new HashEmbedder();
    final CountDownLatch open = new CountDownLatch(1);

    @Override
    public String name() {
      return delegate.name();
    }

    @Override
    public int dimensions() {
      return delegate.dimensions();
    }

    @Override
    public float[] embed(String text) {
      return delegate.embed(text);
    }

    @Override
    public List<float[]> embedAll(List<String> texts) {
      try {
        open.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
      return delegate.embedAll(texts);
    }
  }
}
