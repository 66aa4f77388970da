/**
 * docs/api/openapi.yaml as a contract the tests enforce with validators written by others: the Swagger
 * parser reads the description, and Atlassian's request validator checks every answer an integration
 * test receives (status and body shape) against it.
 */
package dev.updraft.testing.openapi;
