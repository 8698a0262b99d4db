package dev.memsidecar.core;

/**
 * A ListMemories call.
 *
 * @param profile empty means "workspace"
 * @param pageSize 0 means {@link Limits#DEFAULT_PAGE_SIZE}; capped at {@link Limits#MAX_PAGE_SIZE}
 * @param pageToken the previous page's token, or empty for the first page
 */
public record ListInput(
    Scope scope, String profile, int pageSize, String pageToken, boolean includeInactive) {
  public ListInput {
    profile = profile == null ? "" : profile;
    pageToken = pageToken == null ? "" : pageToken;
  }
}
