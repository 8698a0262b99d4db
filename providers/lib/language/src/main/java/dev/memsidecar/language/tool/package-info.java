/**
 * Tools and their calls: the canonical tool nouns ({@link dev.memsidecar.language.tool.ToolNouns}),
 * which tools a noun means ({@link dev.memsidecar.language.tool.ToolAliases}), a rule's objects
 * ({@link dev.memsidecar.language.tool.RuleObjects}) and whether a call's arguments hit them
 * ({@link dev.memsidecar.language.tool.ToolCallMatcher}); a language's words for the nouns are its
 * {@link dev.memsidecar.language.tool.ToolWords}.
 */
package dev.memsidecar.language.tool;
