/**
 * What is not worth a memory ({@link dev.memsidecar.language.lowvalue.LowValueFilter}): the
 * language-neutral filter and what a language says of small talk, greetings and run instructions
 * ({@link dev.memsidecar.language.lowvalue.LowValueRules}).
 */
package dev.memsidecar.language.lowvalue;
