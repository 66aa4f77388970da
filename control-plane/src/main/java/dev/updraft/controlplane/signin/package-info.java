/**
 * People signing in to the console with the company's OIDC provider (authorization code with PKCE): the
 * {@code --oidc-*} flags' role mapping ({@link RoleMap}), the sign-in routes, ID token checks and the
 * in-memory sessions the API's authentication reads ({@link Signin}, {@link Person}).
 */
package dev.updraft.controlplane.signin;
