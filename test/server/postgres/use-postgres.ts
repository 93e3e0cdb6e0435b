/** `setupFiles` of the `server-postgres` jest project: servers started by the tests use Postgres. */
process.env.MGMT_TEST_STORE = "postgres";
