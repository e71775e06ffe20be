// Stands first on the include path of the SQLite-only example build (ExamplePackageTests):
// any #include of libpq's headers by jsonsql or JSONSQLKit fails the build here.
#error "libpq header pg_config_ext.h included: JSONSQLKit must build without libpq's headers"
