/**
 * Whether one answer is a valid Expo Updates response: status, protocol header, strict multipart framing,
 * the manifest or directive JSON, the signature; every failure is an {@link dev.updraft.load.check.ErrorKind}.
 */
package dev.updraft.load.check;
