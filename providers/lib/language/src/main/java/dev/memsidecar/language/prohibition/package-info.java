/**
 * The prohibitions in a user's message ("never email Sarah", 不要给张三发邮件): the language-neutral finder
 * ({@link dev.memsidecar.language.prohibition.Prohibitions}, {@link
 * dev.memsidecar.language.prohibition.ObjectScan}) and what a language says of them ({@link
 * dev.memsidecar.language.prohibition.ProhibitionRules}).
 */
package dev.memsidecar.language.prohibition;
