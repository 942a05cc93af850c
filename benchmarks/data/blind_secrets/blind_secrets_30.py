# ruff: noqa: E501
"""Blind secret-detection corpus 30: database administrators and data-platform engineers.

Brief: connection strings in every dialect (JDBC, ODBC, ADO.NET, Oracle TNS/EZConnect with
passwords, MongoDB SRV, Redis AUTH/ACL users, Cassandra, Neo4j, ClickHouse, CockroachDB,
Snowflake, Databricks PATs, BigQuery service-account JSON, Redshift, Elasticsearch/OpenSearch
basic auth and API keys, Kafka SASL JAAS configs, Schema Registry creds, dbt profiles.yml,
Airflow connection URIs, pgpass lines, my.cnf, pgbouncer userlists with md5/SCRAM verifiers),
replication users, backup encryption keys, TDE keys. Look-alikes: connection strings with the
password replaced by env references or placeholders, SCRAM salt/iteration parameters without
secrets, row ids, LSNs, GTIDs, query ids, checksums, hostnames and ports, public certificates,
schema hashes, partition/shard/primary/sort keys, API key IDs without their secret.

Written blind on 2026-12-07: the author did not read the detector, its tests or any earlier corpus.

Run: python blind_secrets_30.py [out.jsonl]   (JSONL to the path, or stdout without one)

Every random value comes from random.Random(SEED) inside corpus(); no real credential anywhere.

Kinds (secret):
  jdbc_postgres_password, jdbc_mysql_password, jdbc_sqlserver_password, oracle_thin_userpass,
  oracle_ezconnect_sqlplus, oracle_tns_wallet_password, odbc_pwd, adonet_sqlserver_password,
  adonet_npgsql_password, azure_sql_password, mongodb_srv_uri, mongodb_replset_uri,
  mongodb_keyfile, mongodb_encryption_key, redis_requirepass, redis_acl_user,
  redis_url_password, redis_sentinel_auth, cassandra_password, cassandra_jmx_password,
  neo4j_auth, clickhouse_password, cockroach_url, snowflake_password, snowflake_key_passphrase,
  databricks_pat, dbt_databricks_token, databricks_oauth_secret, gcp_sa_private_key,
  redshift_password, elastic_basic_auth, elastic_api_key, opensearch_admin_password,
  kafka_sasl_plain_jaas, kafka_sasl_scram_jaas, confluent_api_secret, schema_registry_creds,
  dbt_profiles_password, airflow_conn_uri, airflow_conn_json, airflow_fernet_key, pgpass_line,
  mycnf_password, pgbouncer_userlist_md5, pgbouncer_userlist_scram, pgbouncer_userlist_plain,
  mysql_replication_password, pg_primary_conninfo, sql_create_user_password,
  pgbackrest_cipher_pass, walg_libsodium_key, xtrabackup_encrypt_key,
  mssql_backup_encryption_password, oracle_tde_keystore_password, mysql_keyring_key,
  cosmos_account_key, influxdb_token, vault_dynamic_db_creds, docker_db_root_password,
  debezium_db_password, flyway_liquibase_password, rds_master_password, kibana_encryption_key,
  neon_supabase_url, trino_password

Kinds (benign):
  jdbc_env_ref, odbc_placeholder, adonet_integrated_security, oracle_wallet_login,
  oracle_tns_entry, mongodb_uri_placeholder, mongodb_x509_uri, mongodb_objectid, redis_url_env,
  redis_cluster_node_id, redis_acl_nopass_off, cassandra_placeholder, cassandra_primary_key,
  neo4j_auth_none, neo4j_element_id, clickhouse_query_id, clickhouse_password_sha256_hex,
  cockroach_cert_url, cockroach_cluster_id, snowflake_env_template, snowflake_query_id,
  snowflake_rsa_public_key, snowflake_public_key_fp, databricks_cluster_id,
  databricks_token_redacted, databricks_secret_scope_ref, gcp_sa_public_fields,
  bigquery_job_id, redshift_iam_auth, redshift_sort_dist_key, es_api_key_id_only,
  es_cluster_uuid, es_keystore_ref, kafka_jaas_config_provider, kafka_oauthbearer_env,
  kafka_cluster_id, kafka_offsets, confluent_api_key_id_only, schema_registry_env_ref,
  schema_fingerprint, airflow_conn_masked, airflow_secrets_backend, pgpass_placeholder,
  mycnf_no_password, scram_params_only, pgbouncer_auth_query, pg_hba_line, pg_lsn,
  pg_wal_segment, mysql_gtid, mysql_binlog_position, mysql_server_uuid, pg_queryid,
  oracle_rowid, oracle_scn, oracle_tde_key_id, mssql_lsn, mssql_tde_thumbprint, kms_key_arn,
  secretsmanager_arn, k8s_secret_ref, vault_path_ref, backup_checksum, backup_md5,
  flyway_checksum, public_certificate, ssh_host_fingerprint, mongodb_shard_key, dynamodb_keys,
  sql_primary_key_ids, hosts_and_ports, password_policy_talk, redacted_connection_string,
  example_doc_password, git_commit_sha, mssql_rowversion, etl_run_ids, influx_org_bucket_ids,
  crc_page_checksum
"""

import base64
import json
import random
import string
import sys

SEED = 3030

ALNUM = string.ascii_letters + string.digits
PWCH = ALNUM + "-_.!*~"

# Templates use @V (value), @H (host), @U (user), @D (database), @S (spare random token).
SECRET_KINDS = {
    "jdbc_postgres_password": (
        "pw",
        [
            "prod reporting DSN: jdbc:postgresql://@H:5432/@D?user=@U&password=@V&ssl=true",
            "Metabase kept timing out, final working URL was\njdbc:postgresql://@H:5432/@D?sslmode=require&user=@U&password=@V",
            "spring.datasource.url=jdbc:postgresql://@H/@D\nspring.datasource.username=@U\nspring.datasource.password=@V",
        ],
    ),
    "jdbc_mysql_password": (
        "pw",
        [
            "jdbc:mysql://@H:3306/@D?user=@U&password=@V&useSSL=true&serverTimezone=UTC",
            "Note to self: the legacy billing app uses jdbc:mysql://@U:@V@@H:3306/@D (yes, creds inline)",
            "DBeaver connection for staging mysql -> host @H, db @D, user @U, password @V",
        ],
    ),
    "jdbc_sqlserver_password": (
        "pw",
        [
            "jdbc:sqlserver://@H:1433;databaseName=@D;user=@U;password=@V;encrypt=true;trustServerCertificate=false",
            "SSRS datasource fixed; conn string now jdbc:sqlserver://@H;databaseName=@D;user=@U;password=@V",
            "hibernate.connection.url = jdbc:sqlserver://@H:1433;database=@D\nhibernate.connection.password = @V",
        ],
    ),
    "oracle_thin_userpass": (
        "pw",
        [
            "jdbc:oracle:thin:@U/@V@//@H:1521/ORCLPDB1",
            "Oracle EBS extract job connects with jdbc:oracle:thin:@U/@V@@H:1521:EBSPROD",
            "remember the sqldeveloper conn for DWH: @U / @V  (service DWHPRD on @H:1521)",
        ],
    ),
    "oracle_ezconnect_sqlplus": (
        "pw",
        [
            "sqlplus system/@V@//@H:1521/XEPDB1",
            "to unlock the account: sqlplus sys/@V@@H:1521/CDB1 as sysdba, then ALTER USER @U ACCOUNT UNLOCK;",
            "rman target sys/@V@//@H/PRODCDB catalog rman/rman@rcat  -- ran this at 02:00 for the restore test",
        ],
    ),
    "oracle_tns_wallet_password": (
        "pw",
        [
            "mkstore -wrl /u01/app/oracle/wallet -createCredential PRODDB @U @V",
            "orapki wallet create -wallet /opt/oracle/wallet -pwd @V -auto_login",
            "Wallet for the TNS alias SALESDB (tnsnames on @H) was created with password @V, auto-login enabled",
        ],
    ),
    "odbc_pwd": (
        "pw",
        [
            "Driver={ODBC Driver 18 for SQL Server};Server=tcp:@H,1433;Database=@D;Uid=@U;Pwd=@V;Encrypt=yes;",
            "[warehouse]\nDriver=PostgreSQL Unicode\nServername=@H\nDatabase=@D\nUsername=@U\nPassword=@V\nPort=5432",
            "pyodbc.connect('DRIVER={MySQL ODBC 8.0 Unicode Driver};SERVER=@H;DATABASE=@D;UID=@U;PWD=@V')",
        ],
    ),
    "adonet_sqlserver_password": (
        "pw",
        [
            "Server=@H;Database=@D;User Id=@U;Password=@V;TrustServerCertificate=True;",
            '"ConnectionStrings": { "Default": "Data Source=@H;Initial Catalog=@D;User ID=@U;Password=@V;MultipleActiveResultSets=true" }',
            "the EF migration only works with: Server=tcp:@H,1433;Initial Catalog=@D;Persist Security Info=False;User ID=@U;Password=@V;",
        ],
    ),
    "adonet_npgsql_password": (
        "pw",
        [
            "Host=@H;Port=5432;Database=@D;Username=@U;Password=@V;SSL Mode=Require",
            'appsettings.Development.json -> "Npgsql": "Host=@H;Database=@D;Username=@U;Password=@V"',
            "Npgsql conn for the integration env: Server=@H;Userid=@U;Password=@V;Database=@D;Pooling=true",
        ],
    ),
    "azure_sql_password": (
        "pw",
        [
            "Server=tcp:@H.database.windows.net,1433;Initial Catalog=@D;User ID=sqladmin;Password=@V;Encrypt=True;",
            "az sql server create -n @H -g rg-data -u sqladmin -p @V --location westeurope",
            "Azure SQL admin for @H.database.windows.net: sqladmin / @V (rotate after the migration)",
        ],
    ),
    "mongodb_srv_uri": (
        "pw",
        [
            "mongodb+srv://@U:@V@cluster0.@S.mongodb.net/@D?retryWrites=true&w=majority",
            'Atlas prod: mongosh "mongodb+srv://cluster1.@S.mongodb.net/" --username @U --password @V',
            "MONGO_URL=mongodb+srv://@U:@V@analytics.@S.mongodb.net/?authSource=admin",
        ],
    ),
    "mongodb_replset_uri": (
        "pw",
        [
            "mongodb://@U:@V@@H:27017,@H:27018,@H:27019/@D?replicaSet=rs0&authSource=admin",
            "mongodump --uri='mongodb://@U:@V@@H:27017/@D?authSource=admin' --gzip --archive=/backup/@D.gz",
            "db.createUser({user: '@U', pwd: '@V', roles: [{role: 'readWrite', db: '@D'}]})",
        ],
    ),
    "mongodb_keyfile": (
        "b64_96",
        [
            "replica set keyFile contents (copy to all three members, chmod 400):\n@V",
            "echo '@V' > /etc/mongod/keyfile  # internal auth key for rs0",
            "mongo internal-auth key for the sharded cluster configsvr + shards: @V",
        ],
    ),
    "mongodb_encryption_key": (
        "b64_32",
        [
            "WiredTiger encryption-at-rest local key (--encryptionKeyFile): @V",
            "CSFLE local master key for dev, base64: @V",
            "security.enableEncryption: true; keyfile /etc/mongo/ear.key contains @V",
        ],
    ),
    "redis_requirepass": (
        "pw",
        [
            "redis.conf on @H:\nbind 0.0.0.0\nrequirepass @V\nmaxmemory 4gb",
            "redis-cli -h @H -p 6379 -a @V --no-auth-warning INFO replication",
            'CONFIG SET requirepass "@V" then updated the app secret; masterauth same value',
        ],
    ),
    "redis_acl_user": (
        "pw",
        [
            "ACL SETUSER @U on >@V ~cache:* &* +@read +@write -@dangerous",
            "users.acl:\nuser default off\nuser @U on >@V ~sessions:* +@all -flushall",
            "AUTH @U @V   # worker ACL user on the elasticache cluster",
        ],
    ),
    "redis_url_password": (
        "pw",
        [
            "REDIS_URL=rediss://default:@V@@H:6380/0",
            "celery broker: redis://:@V@@H:6379/2",
            "sidekiq pointing at redis://@U:@V@@H:6379/5 since the failover",
        ],
    ),
    "redis_sentinel_auth": (
        "pw",
        [
            "sentinel auth-pass mymaster @V\nsentinel monitor mymaster @H 6379 2",
            "sentinel.conf: sentinel auth-user mymaster @U / sentinel auth-pass mymaster @V",
            "masterauth @V  # replicas need this after we enabled requirepass",
        ],
    ),
    "cassandra_password": (
        "pw",
        [
            "cqlsh @H 9042 -u @U -p @V --ssl",
            "ALTER ROLE cassandra WITH PASSWORD = '@V' AND SUPERUSER = true;",
            'datastax-java-driver.advanced.auth-provider { class = PlainTextAuthProvider, username = @U, password = "@V" }',
        ],
    ),
    "cassandra_jmx_password": (
        "pw",
        [
            "/etc/cassandra/jmxremote.password:\nmonitorRole @V\ncontrolRole @S",
            "nodetool -h @H -u controlRole -pw @V repair -pr @D",
            "JMX creds for reaper: user cassandra_jmx password @V",
        ],
    ),
    "neo4j_auth": (
        "pw",
        [
            "docker run -e NEO4J_AUTH=neo4j/@V -p 7687:7687 neo4j:5",
            "GraphDatabase.driver('neo4j+s://@S.databases.neo4j.io', auth=('neo4j', '@V'))",
            'cypher-shell -a bolt://@H:7687 -u neo4j -p @V "SHOW DATABASES"',
        ],
    ),
    "clickhouse_password": (
        "pw",
        [
            "clickhouse-client --host @H --secure --user @U --password @V",
            "users.xml:\n<users><@U><password>@V</password><networks><ip>::/0</ip></networks></@U></users>",
            "curl 'https://@H:8443/?query=SELECT%201' --user '@U:@V'",
        ],
    ),
    "cockroach_url": (
        "pw",
        [
            "postgresql://@U:@V@@S-cluster-1234.8nj.cockroachlabs.cloud:26257/defaultdb?sslmode=verify-full",
            "cockroach sql --url 'postgres://@U:@V@@H:26257/@D?sslmode=require'",
            "CREATE USER @U WITH PASSWORD '@V'; GRANT ALL ON DATABASE @D TO @U;  -- crdb serverless",
        ],
    ),
    "snowflake_password": (
        "pw",
        [
            "~/.snowsql/config\n[connections.prod]\naccountname = @S-ab12345\nusername = @U\npassword = @V",
            "snowflake.connector.connect(user='@U', password='@V', account='@S-xy98765', warehouse='ETL_WH')",
            "jdbc:snowflake://@S.snowflakecomputing.com/?user=@U&password=@V&warehouse=LOAD_WH&db=@D",
        ],
    ),
    "snowflake_key_passphrase": (
        "pw",
        [
            "SNOWFLAKE_PRIVATE_KEY_PASSPHRASE=@V  (rsa_key.p8 for svc_@U)",
            "openssl genrsa 2048 | openssl pkcs8 -topk8 -v2 aes256 -passout pass:@V -out rsa_key.p8",
            "private_key_passphrase: @V   # dbt snowflake keypair auth",
        ],
    ),
    "databricks_pat": (
        "dapi",
        [
            "DATABRICKS_TOKEN=@V\nDATABRICKS_HOST=https://adb-@S.azuredatabricks.net",
            "curl -H 'Authorization: Bearer @V' https://@H/api/2.0/clusters/list",
            "[DEFAULT]\nhost = https://dbc-@S.cloud.databricks.com\ntoken = @V",
        ],
    ),
    "dbt_databricks_token": (
        "dapi",
        [
            "profiles.yml\nlakehouse:\n  target: prod\n  outputs:\n    prod:\n      type: databricks\n      host: @H\n      token: @V",
            "dbt cloud job failing; regenerated PAT for the service principal, new one is @V",
            "airflow var databricks_pat = @V (used by DatabricksRunNowOperator)",
        ],
    ),
    "databricks_oauth_secret": (
        "dose",
        [
            "service principal sp-etl OAuth: client_id=@S client_secret=@V",
            "DATABRICKS_CLIENT_SECRET=@V",
            "m2m oauth secret for the workspace (shown once!): @V",
        ],
    ),
    "gcp_sa_private_key": (
        "pem_json",
        [
            '{"type": "service_account", "project_id": "@S-analytics", "private_key_id": "@D", "private_key": "@V", "client_email": "bq-loader@@S-analytics.iam.gserviceaccount.com"}',
            'bigquery creds pasted from keyfile: "private_key": "@V",',
            'GOOGLE_CREDENTIALS_JSON private_key field = "@V"',
        ],
    ),
    "redshift_password": (
        "pw",
        [
            "jdbc:redshift://@H:5439/@D?user=@U&password=@V",
            "PGPASSWORD=@V psql -h @H -p 5439 -U @U -d @D -c 'VACUUM;'",
            "aws redshift create-cluster --cluster-identifier dwh --master-username @U --master-user-password @V --node-type ra3.xlplus",
        ],
    ),
    "elastic_basic_auth": (
        "pw",
        [
            "curl -u elastic:@V -k https://@H:9200/_cat/indices?v",
            'filebeat output.elasticsearch:\n  hosts: ["@H:9200"]\n  username: "@U"\n  password: "@V"',
            "ELASTIC_PASSWORD=@V  (reset with elasticsearch-reset-password -u elastic)",
        ],
    ),
    "elastic_api_key": (
        "es_apikey",
        [
            "curl -H 'Authorization: ApiKey @V' https://@H:9243/_search",
            "logstash api_key encoded for the ingest role: @V",
            "es = Elasticsearch('https://@H:443', api_key='@V')",
        ],
    ),
    "opensearch_admin_password": (
        "pw",
        [
            "OPENSEARCH_INITIAL_ADMIN_PASSWORD=@V",
            "curl -XGET -u 'admin:@V' --insecure https://@H:9200/_cluster/health",
            "internal_users.yml reset; the new admin login for dashboards is admin / @V",
        ],
    ),
    "kafka_sasl_plain_jaas": (
        "pw",
        [
            'sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="@U" password="@V";',
            'KafkaClient {\n  org.apache.kafka.common.security.plain.PlainLoginModule required\n  username="@U"\n  password="@V";\n};',
            "kcat -b @H:9092 -X security.protocol=SASL_SSL -X sasl.mechanisms=PLAIN -X sasl.username=@U -X sasl.password=@V -L",
        ],
    ),
    "kafka_sasl_scram_jaas": (
        "pw",
        [
            'sasl.mechanism=SCRAM-SHA-512\nsasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="@U" password="@V";',
            "kafka-configs.sh --bootstrap-server @H:9092 --alter --add-config 'SCRAM-SHA-256=[iterations=8192,password=@V]' --entity-type users --entity-name @U",
            "MSK SCRAM user @U, password @V (stored as AmazonMSK_@U in secrets manager too)",
        ],
    ),
    "confluent_api_secret": (
        "cflt_secret",
        [
            "Confluent Cloud cluster key @K / secret @V",
            'sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="@K" password="@V";',
            "confluent api-key store @K @V --resource lkc-@D",
        ],
    ),
    "schema_registry_creds": (
        "cflt_secret",
        [
            "basic.auth.credentials.source=USER_INFO\nbasic.auth.user.info=@K:@V",
            "schema.registry.basic.auth.user.info=@K:@V",
            "SR creds for psrc cluster: key @K secret @V",
        ],
    ),
    "dbt_profiles_password": (
        "pw",
        [
            "warehouse:\n  outputs:\n    dev:\n      type: postgres\n      host: @H\n      user: @U\n      password: @V\n      dbname: @D\n      schema: dbt_dev",
            "dbt profiles for redshift -> user: @U, pass: @V, port 5439",
            "snowflake dbt target:\n  account: @S\n  user: @U\n  password: '@V'\n  role: TRANSFORMER",
        ],
    ),
    "airflow_conn_uri": (
        "pw",
        [
            "AIRFLOW_CONN_WAREHOUSE='postgres://@U:@V@@H:5432/@D'",
            "airflow connections add mysql_src --conn-uri 'mysql://@U:@V@@H:3306/@D'",
            "export AIRFLOW_CONN_SNOWFLAKE_DEFAULT='snowflake://@U:@V@/@D/PUBLIC?account=@S&warehouse=WH'",
        ],
    ),
    "airflow_conn_json": (
        "pw",
        [
            'AIRFLOW_CONN_MSSQL=\'{"conn_type": "mssql", "host": "@H", "login": "@U", "password": "@V", "port": 1433}\'',
            "airflow connections add redshift_default --conn-type redshift --conn-host @H --conn-login @U --conn-password @V",
            "fixed Airflow UI conn id 'pg_oltp': login @U, password @V, schema @D",
        ],
    ),
    "airflow_fernet_key": (
        "fernet",
        [
            "AIRFLOW__CORE__FERNET_KEY=@V",
            "[core]\nfernet_key = @V",
            "airflow fernet key (all conn passwords encrypted with it): @V",
        ],
    ),
    "pgpass_line": (
        "pw",
        [
            "@H:5432:@D:@U:@V",
            "~/.pgpass (chmod 600):\n@H:5432:*:replicator:@V",
            "added to pgpass for the cron dump: *:5432:@D:@U:@V",
        ],
    ),
    "mycnf_password": (
        "pw",
        [
            "[client]\nuser=root\npassword=@V\nhost=@H",
            '~/.my.cnf\n[mysqldump]\nuser=@U\npassword="@V"\nsingle-transaction',
            "mysqladmin -u root -p@V -h @H status",
        ],
    ),
    "pgbouncer_userlist_md5": (
        "md5verifier",
        [
            '"@U" "@V"',
            'userlist.txt:\n"@U" "@V"\n"pgbouncer_admin" "@S"',
            "pgbouncer auth_type=md5; entry for @U in userlist is @V",
        ],
    ),
    "pgbouncer_userlist_scram": (
        "scramverifier",
        [
            '"@U" "@V"',
            "copied from pg_authid.rolpassword into userlist.txt for @U: @V",
            'auth_file entry (scram) for the app pool:\n"@U" "@V"',
        ],
    ),
    "pgbouncer_userlist_plain": (
        "pw",
        [
            '/etc/pgbouncer/userlist.txt\n"@U" "@V"\n"stats" "@S"',
            'pgbouncer admin_users = pgbouncer; userlist "pgbouncer" "@V"',
            'auth_type = plain for now (temporary), userlist has "@U" "@V"',
        ],
    ),
    "mysql_replication_password": (
        "pw",
        [
            "CHANGE REPLICATION SOURCE TO SOURCE_HOST='@H', SOURCE_USER='repl', SOURCE_PASSWORD='@V', SOURCE_AUTO_POSITION=1;",
            "CREATE USER 'repl'@'10.%' IDENTIFIED BY '@V'; GRANT REPLICATION SLAVE ON *.* TO 'repl'@'10.%';",
            "CHANGE MASTER TO MASTER_HOST='@H', MASTER_USER='replicator', MASTER_PASSWORD='@V', MASTER_LOG_FILE='mysql-bin.000042', MASTER_LOG_POS=154;",
        ],
    ),
    "pg_primary_conninfo": (
        "pw",
        [
            "primary_conninfo = 'host=@H port=5432 user=replicator password=@V application_name=standby1'",
            "pg_basebackup -d 'host=@H user=replicator password=@V' -D /var/lib/postgresql/16/main -R -X stream",
            "logical sub: CREATE SUBSCRIPTION sub_orders CONNECTION 'host=@H dbname=@D user=@U password=@V' PUBLICATION pub_orders;",
        ],
    ),
    "sql_create_user_password": (
        "pw",
        [
            "CREATE ROLE @U LOGIN PASSWORD '@V' VALID UNTIL 'infinity';",
            "ALTER USER @U WITH PASSWORD '@V';  -- rotated after the offboarding",
            "CREATE LOGIN etl_svc WITH PASSWORD = '@V', CHECK_POLICY = ON;",
        ],
    ),
    "pgbackrest_cipher_pass": (
        "b64_48",
        [
            "[global]\nrepo1-cipher-type=aes-256-cbc\nrepo1-cipher-pass=@V\nrepo1-path=/var/lib/pgbackrest",
            "pgbackrest repo encryption passphrase (without it the S3 backups are useless): @V",
            "PGBACKREST_REPO1_CIPHER_PASS=@V",
        ],
    ),
    "walg_libsodium_key": (
        "hex64",
        [
            "WALG_LIBSODIUM_KEY=@V\nWALG_LIBSODIUM_KEY_TRANSFORM=hex",
            "wal-g encryption key for the pg16 cluster: @V",
            "barman/wal-g: switched to libsodium, key @V, old PGP key retired",
        ],
    ),
    "xtrabackup_encrypt_key": (
        "alnum32",
        [
            "xtrabackup --backup --encrypt=AES256 --encrypt-key=@V --target-dir=/backups/full",
            "[xtrabackup]\nencrypt=AES256\nencrypt-key=@V",
            "mariabackup nightly uses encrypt key @V (needed for --decrypt)",
        ],
    ),
    "mssql_backup_encryption_password": (
        "pw",
        [
            "BACKUP CERTIFICATE BackupCert TO FILE = 'D:\\certs\\BackupCert.cer' WITH PRIVATE KEY (FILE = 'D:\\certs\\BackupCert.pvk', ENCRYPTION BY PASSWORD = '@V');",
            "CREATE MASTER KEY ENCRYPTION BY PASSWORD = '@V';  -- master db, for TDE",
            "to restore on the DR box you need the pvk and its password: @V",
        ],
    ),
    "oracle_tde_keystore_password": (
        "pw",
        [
            'ADMINISTER KEY MANAGEMENT SET KEYSTORE OPEN IDENTIFIED BY "@V" CONTAINER=ALL;',
            "TDE wallet password for PRODCDB: @V  (keystore at /u01/app/oracle/admin/PROD/wallet/tde)",
            "ADMINISTER KEY MANAGEMENT SET KEY FORCE KEYSTORE IDENTIFIED BY @V WITH BACKUP USING 'q3_rotation';",
        ],
    ),
    "mysql_keyring_key": (
        "b64_32",
        [
            "SELECT keyring_key_generate('tde_master', 'AES', 32); exported value was @V",
            "keyring_file master key base64 for the restore test: @V",
            "innodb TDE: keyring_encrypted_file_password=@V",
        ],
    ),
    "cosmos_account_key": (
        "b64_64",
        [
            "AccountEndpoint=https://@S.documents.azure.com:443/;AccountKey=@V;",
            "Cosmos primary key for @S: @V",
            "COSMOS_KEY=@V",
        ],
    ),
    "influxdb_token": (
        "b64_64url",
        [
            "INFLUX_TOKEN=@V",
            "influx config create -n prod -u https://@H:8086 -o ops -t @V",
            'telegraf outputs.influxdb_v2 token = "@V"',
        ],
    ),
    "vault_dynamic_db_creds": (
        "vaultpw",
        [
            "vault read database/creds/readonly\nusername  v-token-readonly-@S\npassword  @V\nlease_duration 768h",
            "got a 24h lease from vault for pg: user v-approle-etl-@S pw @V",
            "psql 'host=@H user=v-oidc-dba-@S password=@V dbname=@D'",
        ],
    ),
    "docker_db_root_password": (
        "pw",
        [
            "environment:\n  POSTGRES_USER: @U\n  POSTGRES_PASSWORD: @V\n  POSTGRES_DB: @D",
            "docker run -e MYSQL_ROOT_PASSWORD=@V -d mysql:8.4",
            "docker run -e ACCEPT_EULA=Y -e MSSQL_SA_PASSWORD='@V' -p 1433:1433 mcr.microsoft.com/mssql/server:2022-latest",
        ],
    ),
    "debezium_db_password": (
        "pw",
        [
            '{"connector.class": "io.debezium.connector.postgresql.PostgresConnector", "database.hostname": "@H", "database.user": "@U", "database.password": "@V"}',
            "debezium mysql source: database.user=debezium database.password=@V",
            'jdbc sink: "connection.url": "jdbc:postgresql://@H/@D", "connection.user": "@U", "connection.password": "@V"',
        ],
    ),
    "flyway_liquibase_password": (
        "pw",
        [
            "flyway.url=jdbc:postgresql://@H/@D\nflyway.user=@U\nflyway.password=@V",
            "liquibase --url=jdbc:mysql://@H/@D --username=@U --password=@V update",
            "flyway -user=@U -password=@V migrate  (ran against staging)",
        ],
    ),
    "rds_master_password": (
        "pw",
        [
            "aws rds create-db-instance --db-instance-identifier orders-pg --engine postgres --master-username @U --master-user-password '@V'",
            "aws rds modify-db-instance --db-instance-identifier @D --master-user-password @V --apply-immediately",
            "RDS orders-prod master creds: @U / @V",
        ],
    ),
    "kibana_encryption_key": (
        "alnum32",
        [
            'xpack.encryptedSavedObjects.encryptionKey: "@V"',
            "xpack.security.encryptionKey: @V\nxpack.reporting.encryptionKey: @S",
            "kibana keystore add xpack.security.encryptionKey  -> value @V",
        ],
    ),
    "neon_supabase_url": (
        "pw",
        [
            "DATABASE_URL=postgresql://@U:@V@ep-@S-123456.us-east-2.aws.neon.tech/@D?sslmode=require",
            "supabase pooler: postgres://postgres.@S:@V@aws-0-eu-central-1.pooler.supabase.com:6543/postgres",
            'prisma .env -> DATABASE_URL="postgresql://@U:@V@@H:5432/@D?schema=public"',
        ],
    ),
    "trino_password": (
        "pw",
        [
            "trino --server https://@H:8443 --user @U --password  (typed @V)",
            "connector catalog/pg.properties:\nconnection-url=jdbc:postgresql://@H:5432/@D\nconnection-user=@U\nconnection-password=@V",
            "password-authenticator file (still plaintext, bcrypt migration pending): @U:@V",
        ],
    ),
}

BENIGN_KINDS = {
    "jdbc_env_ref": (
        "envref",
        [
            "jdbc:postgresql://@H:5432/@D?user=@U&password=@V&ssl=true",
            "spring.datasource.url=jdbc:mysql://@H:3306/@D\nspring.datasource.password=@V",
            "jdbc:sqlserver://@H:1433;databaseName=@D;user=@U;password=@V;encrypt=true",
        ],
    ),
    "odbc_placeholder": (
        "angle",
        [
            "Driver={ODBC Driver 18 for SQL Server};Server=tcp:@H,1433;Database=@D;Uid=@U;Pwd=@V;Encrypt=yes;",
            "template for new analysts: DRIVER={PostgreSQL Unicode};SERVER=@H;UID=<you>;PWD=@V",
            "odbc.ini snippet for the wiki:\n[dwh]\nServername=@H\nUsername=@U\nPassword=@V",
        ],
    ),
    "adonet_integrated_security": (
        "none",
        [
            "Server=@H;Database=@D;Integrated Security=SSPI;TrustServerCertificate=True;",
            "Data Source=@H;Initial Catalog=@D;Authentication=Active Directory Managed Identity;",
            "switched the API to Trusted_Connection=True on @H\\SQL2019, no password in config anymore",
        ],
    ),
    "oracle_wallet_login": (
        "none",
        [
            "sqlplus /@PRODDB   -- wallet-based login, creds live in the SEPS wallet",
            "jdbc:oracle:thin:/@salesdb_high?TNS_ADMIN=/opt/oracle/wallet_salesdb",
            "ADB connect: download the wallet zip, set TNS_ADMIN, then sqlplus admin@@D_high (prompts for password)",
        ],
    ),
    "oracle_tns_entry": (
        "none",
        [
            "PRODDB =\n  (DESCRIPTION =\n    (ADDRESS = (PROTOCOL = TCP)(HOST = @H)(PORT = 1521))\n    (CONNECT_DATA = (SERVICE_NAME = prod.@D)))",
            "EZConnect for the new PDB: @H:1521/@D.example.internal",
            "tnsping SALESDB -> OK (20 msec), alias resolves to @H:1522",
        ],
    ),
    "mongodb_uri_placeholder": (
        "angle",
        [
            "mongodb+srv://@U:@V@cluster0.@S.mongodb.net/@D?retryWrites=true",
            "Atlas UI gives: mongodb+srv://@U:@V@analytics.@S.mongodb.net/ (replace the placeholder)",
            'mongosh "mongodb://@H:27017/@D" --username @U --password @V',
        ],
    ),
    "mongodb_x509_uri": (
        "none",
        [
            "mongodb+srv://cluster0.@S.mongodb.net/?authMechanism=MONGODB-X509&authSource=%24external&tlsCertificateKeyFile=/etc/ssl/client.pem",
            "MONGO_URL=mongodb://@H:27017/@D?authMechanism=MONGODB-AWS&authSource=$external",
            "security:\n  keyFile: /etc/mongod/keyfile\n  authorization: enabled",
        ],
    ),
    "mongodb_objectid": (
        "hex24",
        [
            "the broken order doc is _id: ObjectId('@V') in @D.orders",
            'db.users.find({_id: ObjectId("@V")}) returns the duplicate tenant',
            "resume token pointed at @V, changestream restarted fine",
        ],
    ),
    "redis_url_env": (
        "envref",
        [
            "REDIS_URL=rediss://default:@V@@H:6380/0",
            'redis-cli -h @H -a "@V" --no-auth-warning ping',
            "requirepass is injected at boot: requirepass @V (entrypoint does envsubst)",
        ],
    ),
    "redis_cluster_node_id": (
        "hex40",
        [
            "CLUSTER NODES: @V @H:6379@16379 master - 0 1712345678 3 connected 5461-10922",
            "redis-cli --cluster del-node @H:7000 @V",
            "node @V failed over, slots 0-5460 moved to the replica",
        ],
    ),
    "redis_acl_nopass_off": (
        "none",
        [
            "ACL LIST -> user default off nopass sanitize-payload ~* &* +@all",
            "user @U on nopass ~public:* +get   # only reachable from the VPC, read-only",
            "ACL WHOAMI returned '@U'; ACL LOG shows 3 auth failures from @H",
        ],
    ),
    "cassandra_placeholder": (
        "angle",
        [
            "cqlsh @H 9042 -u @U -p @V --ssl",
            "auth-provider { username = @U, password = ${?CASSANDRA_PASSWORD} }",
            "ALTER ROLE @U WITH PASSWORD = '@V';  -- template, fill in from vault",
        ],
    ),
    "cassandra_primary_key": (
        "none",
        [
            "CREATE TABLE events (tenant_id uuid, day date, ts timeuuid, payload blob, PRIMARY KEY ((tenant_id, day), ts)) WITH CLUSTERING ORDER BY (ts DESC);",
            "partition key = (tenant_id, bucket), clustering key = event_time; hot partition was tenant @S",
            "token range for the partition key: nodetool getendpoints @D events '@S'",
        ],
    ),
    "neo4j_auth_none": (
        "none",
        [
            "NEO4J_AUTH=none  # local docker only, port bound to 127.0.0.1",
            "dbms.security.auth_enabled=false on the throwaway test container",
            "neo4j-admin dbms set-initial-password is run by the helm chart from the k8s secret neo4j-auth",
        ],
    ),
    "neo4j_element_id": (
        "neo4jid",
        [
            "MATCH (n) WHERE elementId(n) = '@V' RETURN n",
            "dangling relationship elementId @V between two Account nodes",
            "tx id @S committed; node @V was the duplicate customer",
        ],
    ),
    "clickhouse_query_id": (
        "uuid",
        [
            "SELECT * FROM system.query_log WHERE query_id = '@V'",
            "KILL QUERY WHERE query_id = '@V' -- the runaway join",
            "clickhouse slow query @V read 1.2 TB from @D.events",
        ],
    ),
    "clickhouse_password_sha256_hex": (
        "none",
        [
            'users.xml: <password_sha256_hex from_env="CH_PW_HASH"/> for @U; value comes from the sealed secret',
            '<@U><password from_env="CLICKHOUSE_PASSWORD"/><profile>readonly</profile></@U>',
            "clickhouse-client --host @H --secure --user @U --ask-password",
        ],
    ),
    "cockroach_cert_url": (
        "none",
        [
            "postgresql://root@@H:26257/defaultdb?sslmode=verify-full&sslrootcert=certs/ca.crt&sslcert=certs/client.root.crt&sslkey=certs/client.root.key",
            "cockroach sql --certs-dir=/cockroach/certs --host=@H:26257",
            "crdb cluster id @S, node 4 decommissioned, ranges rebalanced",
        ],
    ),
    "cockroach_cluster_id": (
        "uuid",
        [
            "cockroach node status -> ClusterID: @V",
            "SELECT crdb_internal.cluster_id(); -- @V",
            "support ticket references cluster @V (serverless, us-central1)",
        ],
    ),
    "snowflake_env_template": (
        "jinja",
        [
            "snowflake:\n  account: @S-ab12345\n  user: @U\n  password: @V\n  role: TRANSFORMER",
            "dbt target uses password: @V and warehouse TRANSFORM_WH",
            "redshift profile: user: @U  password: @V  port: 5439",
        ],
    ),
    "snowflake_query_id": (
        "sfqid",
        [
            "SELECT * FROM TABLE(RESULT_SCAN('@V'));",
            "snowflake query id @V spilled 40 GB to remote storage",
            "SYSTEM$CANCEL_QUERY('@V') didn't work, had to kill the warehouse",
        ],
    ),
    "snowflake_rsa_public_key": (
        "pubkey_b64",
        [
            "ALTER USER svc_@U SET RSA_PUBLIC_KEY='@V';",
            "public key registered for keypair auth (rsa_key.pub body): @V",
            "DESC USER svc_@U shows RSA_PUBLIC_KEY = @V",
        ],
    ),
    "snowflake_public_key_fp": (
        "sha256fp",
        [
            "RSA_PUBLIC_KEY_FP = SHA256:@V",
            "jwt iss must be ACCOUNT.USER.SHA256:@V",
            "key fingerprint after rotation SHA256:@V (RSA_PUBLIC_KEY_2 slot)",
        ],
    ),
    "databricks_cluster_id": (
        "dbx_cluster",
        [
            "cluster_id = @V (DBR 14.3 LTS, autoscale 2-8)",
            "databricks clusters start --cluster-id @V",
            "job 812734 runs on existing cluster @V in workspace @S",
        ],
    ),
    "databricks_token_redacted": (
        "dapi_redacted",
        [
            "DATABRICKS_TOKEN=@V  (value redacted, it's in the keyvault)",
            "token list shows comment 'ci' token_id @S, prefix @V - revoked yesterday",
            "audit log masks the PAT as @V",
        ],
    ),
    "databricks_secret_scope_ref": (
        "none",
        [
            'password = dbutils.secrets.get(scope="prod-jdbc", key="@D-password")',
            "spark conf: spark.hadoop.fs.azure.account.key.@S.dfs.core.windows.net {{secrets/storage/@S-key}}",
            "databricks secrets put-secret prod-jdbc pg-password  (prompted, not on the command line)",
        ],
    ),
    "gcp_sa_public_fields": (
        "hex40",
        [
            '{"type": "service_account", "project_id": "@S-analytics", "private_key_id": "@V", "client_email": "bq-loader@@S-analytics.iam.gserviceaccount.com", "client_id": "104857293847561029384"}',
            "key @V for bq-loader was deleted in IAM (the json was never checked in)",
            "gcloud iam service-accounts keys list shows KEY_ID @V created 2026-11-02",
        ],
    ),
    "bigquery_job_id": (
        "bqjob",
        [
            "bq show -j @V",
            "BigQuery job @V scanned 3.4 TB, someone forgot the partition filter",
            "INFORMATION_SCHEMA.JOBS: job_id '@V' user bq-loader",
        ],
    ),
    "redshift_iam_auth": (
        "none",
        [
            "jdbc:redshift:iam://@H:5439/@D?DbUser=@U&AutoCreate=true&Profile=dwh-readonly",
            "aws redshift get-cluster-credentials --db-user @U --cluster-identifier dwh  (temporary creds, 15 min)",
            "redshift serverless via IAM role arn:aws:iam::123456789012:role/redshift-etl, no stored password",
        ],
    ),
    "redshift_sort_dist_key": (
        "none",
        [
            "CREATE TABLE fact_sales (...) DISTSTYLE KEY DISTKEY (customer_id) COMPOUND SORTKEY (sale_date, store_id);",
            "changed sort key to interleaved (event_ts, tenant_id); vacuum reindex took 3h",
            "skew: dist key @S was 40% of rows, moving to DISTSTYLE EVEN",
        ],
    ),
    "es_api_key_id_only": (
        "es_keyid",
        [
            '{"id": "@V", "name": "ingest-@U", "expiration": 1767225600000}',
            "invalidated api key id @V (leaked in a screenshot; the encoded secret was never shared)",
            "GET _security/api_key?id=@V -> owner @U, role_descriptors logs-writer",
        ],
    ),
    "es_cluster_uuid": (
        "es_keyid22",
        [
            'GET / -> cluster_uuid "@V", version 8.15.0',
            "node id @V left the cluster after the GC storm",
            "snapshot uuid @V in repo s3_backups, state SUCCESS",
        ],
    ),
    "es_keystore_ref": (
        "none",
        [
            "bin/elasticsearch-keystore add bootstrap.password   (entered interactively)",
            'filebeat output.elasticsearch.password: "${ES_PWD}"  with ES_PWD in the filebeat keystore',
            "opensearch admin password is taken from the k8s secret opensearch-admin, key 'password'",
        ],
    ),
    "kafka_jaas_config_provider": (
        "cfgprovider",
        [
            'sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="@U" password="@V";',
            "config.providers=file\nconfig.providers.file.class=org.apache.kafka.common.config.provider.FileConfigProvider\nconnection.password=@V",
            'KafkaClient { ScramLoginModule required username="@U" password="@V"; };',
        ],
    ),
    "kafka_oauthbearer_env": (
        "envref",
        [
            'sasl.mechanism=OAUTHBEARER\nsasl.oauthbearer.token.endpoint.url=https://@H/oauth2/token\nsasl.jaas.config=...OAuthBearerLoginModule required clientId="kafka-@U" clientSecret="@V";',
            "kcat -X sasl.username=@U -X sasl.password=@V -b @H:9092 -L",
            "MSK IAM auth: sasl.mechanism=AWS_MSK_IAM, no password; callback handler IAMClientCallbackHandler",
        ],
    ),
    "kafka_cluster_id": (
        "kafka_cid",
        [
            "kafka-storage.sh format -t @V -c config/kraft/server.properties",
            "meta.properties: cluster.id=@V node.id=3",
            "KRaft cluster id @V, controller quorum 1@@H:9093",
        ],
    ),
    "kafka_offsets": (
        "none",
        [
            "consumer group orders-etl lag: partition 7 current-offset 18273645 log-end 18281002",
            "reset offsets: kafka-consumer-groups --group @U --topic @D --reset-offsets --to-datetime 2026-12-01T00:00:00.000 --execute",
            "partition key for the topic is customer_id; partitions 48, hot partition 13",
        ],
    ),
    "confluent_api_key_id_only": (
        "cflt_key",
        [
            "Confluent API key @V (owner sa-@S) - secret is only in the vault",
            "schema registry key id @V was deleted; new key requested",
            "confluent api-key list -> @V  lkc-@D  sa-@S  Created 2026-10-03",
        ],
    ),
    "schema_registry_env_ref": (
        "envref",
        [
            "basic.auth.credentials.source=USER_INFO\nbasic.auth.user.info=@V",
            "schema.registry.basic.auth.user.info=@V",
            "SR config uses basic.auth.user.info=@V, injected by the operator",
        ],
    ),
    "schema_fingerprint": (
        "hex64",
        [
            "avro schema fingerprint (SHA-256 of the canonical form): @V",
            "schema id 100244, subject orders-value, version 7, sha256 @V",
            "schema compat check passed; new schema digest @V",
        ],
    ),
    "airflow_conn_masked": (
        "masked",
        [
            "AIRFLOW_CONN_WAREHOUSE='postgres://@U:@V@@H:5432/@D'",
            "airflow connections get pg_oltp -> postgres://@U:@V@@H:5432/@D",
            "task log shows mysql://@U:@V@@H:3306/@D (airflow masks it)",
        ],
    ),
    "airflow_secrets_backend": (
        "none",
        [
            '[secrets]\nbackend = airflow.providers.amazon.aws.secrets.secrets_manager.SecretsManagerBackend\nbackend_kwargs = {"connections_prefix": "airflow/connections"}',
            "AIRFLOW_CONN_BQ='google-cloud-platform://?key_path=%2Fopt%2Fkeys%2Fbq.json&project=@S-analytics'",
            "conn id snowflake_default resolved from vault path airflow/connections/snowflake_default",
        ],
    ),
    "pgpass_placeholder": (
        "angle",
        [
            "@H:5432:@D:@U:@V",
            "pgpass format is hostname:port:database:username:password, e.g. *:5432:*:replicator:@V",
            "~/.pgpass template (fill in locally, never commit):\n@H:5432:*:@U:@V",
        ],
    ),
    "mycnf_no_password": (
        "none",
        [
            "[client]\nuser=@U\nsocket=/var/run/mysqld/mysqld.sock\n# password via mysql_config_editor login-path",
            "mysql_config_editor set --login-path=backup --host=@H --user=@U --password  (prompted; stored obfuscated)",
            "[mysqld]\nserver-id=3\nlog-bin=mysql-bin\ngtid-mode=ON\nenforce-gtid-consistency=ON",
        ],
    ),
    "scram_params_only": (
        "scram_salt",
        [
            "server-first-message: r=@S,s=@V,i=4096",
            "password_encryption = scram-sha-256; scram_iterations = 4096; salt for @U is @V (salt alone is public info)",
            "kafka-configs --describe --entity-type users --entity-name @U -> SCRAM-SHA-512=salt=@V,iterations=4096",
        ],
    ),
    "pgbouncer_auth_query": (
        "none",
        [
            "[pgbouncer]\nauth_type = scram-sha-256\nauth_user = pgbouncer_auth\nauth_query = SELECT usename, passwd FROM pgbouncer.get_auth($1)",
            "auth_file = /etc/pgbouncer/userlist.txt (rendered by the vault agent template, not in git)",
            "pool_mode = transaction, default_pool_size = 40, listen_port = 6432 on @H",
        ],
    ),
    "pg_hba_line": (
        "none",
        [
            "hostssl replication replicator 10.20.0.0/16 scram-sha-256",
            "host all @U @H/32 md5   -> changed to scram-sha-256 after the upgrade",
            "local all postgres peer\nhostssl @D all 0.0.0.0/0 cert clientcert=verify-full",
        ],
    ),
    "pg_lsn": (
        "lsn",
        [
            "replay lag: pg_last_wal_replay_lsn() = @V, sent_lsn ahead by 48 MB",
            "logical slot debezium_slot confirmed_flush_lsn @V",
            "pg_waldump --start=@V showed the torn page",
        ],
    ),
    "pg_wal_segment": (
        "walseg",
        [
            "archive_command failed for @V (S3 503s)",
            "restore_command fetched @V from wal-g storage",
            "timeline switched; first segment on new TL is @V",
        ],
    ),
    "mysql_gtid": (
        "gtid",
        [
            "Executed_Gtid_Set: @V",
            "SET GLOBAL gtid_purged = '@V';",
            "replica stuck on GTID @V, skipped with an empty transaction",
        ],
    ),
    "mysql_binlog_position": (
        "none",
        [
            "SHOW MASTER STATUS -> File: mysql-bin.000217, Position: 48211903",
            "point-in-time restore up to binlog mysql-bin.000091 pos 1183377 (just before the DROP)",
            "server_uuid in auto.cnf is different on the clone, that's why replication broke",
        ],
    ),
    "mysql_server_uuid": (
        "uuid",
        [
            "[auto]\nserver-uuid=@V",
            "SELECT @@server_uuid; -> @V",
            "replica @H has server_uuid @V",
        ],
    ),
    "pg_queryid": (
        "queryid",
        [
            "pg_stat_statements queryid @V: 40% of total exec time",
            "auto_explain plan for queryid=@V attached to the ticket",
            "SELECT pg_stat_statements_reset(0, 0, @V);",
        ],
    ),
    "oracle_rowid": (
        "rowid",
        [
            "DELETE FROM orders WHERE ROWID = '@V';  -- removing the duplicate",
            "block corruption at rowid @V, dbv confirms",
            "chained row example: @V (DBMS_ROWID.ROWID_BLOCK_NUMBER = 151)",
        ],
    ),
    "oracle_scn": (
        "none",
        [
            "FLASHBACK TABLE orders TO SCN 1234598765432;",
            "RMAN> RECOVER DATABASE UNTIL SCN 88377120911;",
            "current_scn on the standby lags by 30411 compared to primary",
        ],
    ),
    "oracle_tde_key_id": (
        "tde_keyid",
        [
            "V$ENCRYPTION_KEYS: KEY_ID = @V, CREATION_TIME 2026-09-01, ACTIVATING_PDBNAME PROD1",
            "after rekey the master key id is @V (the key material stays in the HSM)",
            "TDE master key @V was backed up with tag q3_rotation; keystore is auto-login",
        ],
    ),
    "mssql_lsn": (
        "mssql_lsn",
        [
            "RESTORE LOG @D FROM DISK='L:\\log.trn' WITH STOPATMARK = 'lsn:@V'",
            "CDC min_lsn 0x0000002A000001C80003 / current lsn @V",
            "fn_dblog shows the DELETE at LSN @V",
        ],
    ),
    "mssql_tde_thumbprint": (
        "hex40",
        [
            "sys.dm_database_encryption_keys: encryptor_thumbprint 0x@V, encryption_state 3",
            "TDE certificate TDECert thumbprint @V, expires 2030-01-01",
            "DR restore failed: cannot find server certificate with thumbprint '0x@V'",
        ],
    ),
    "kms_key_arn": (
        "kms_arn",
        [
            "backups encrypted with KMS key @V",
            "aws rds restore-db-instance-from-db-snapshot ... --kms-key-id @V",
            "pgbackrest repo1-s3-kms-key-id=@V (SSE-KMS, no cipher pass)",
        ],
    ),
    "secretsmanager_arn": (
        "sm_arn",
        [
            "RDS master password managed by Secrets Manager: @V",
            "ECS task def valueFrom: @V:password::",
            "rotation lambda attached to @V, every 30 days",
        ],
    ),
    "k8s_secret_ref": (
        "none",
        [
            "env:\n- name: DB_PASSWORD\n  valueFrom:\n    secretKeyRef:\n      name: @D-pg-app\n      key: password",
            "CNPG creates secret @D-app with keys username/password/uri; app mounts it",
            "external-secrets ExternalSecret pulls prod/@D/replicator into k8s secret repl-creds",
        ],
    ),
    "vault_path_ref": (
        "none",
        [
            "vault kv get -field=password secret/data/db/@D/@U",
            "vault write database/config/@D plugin_name=postgresql-database-plugin connection_url='postgresql://{{username}}:{{password}}@@H:5432/@D' username=vault_admin password=\"$VAULT_PG_ADMIN_PW\"",
            "DB creds now come from vault database/creds/readonly (TTL 1h)",
        ],
    ),
    "backup_checksum": (
        "hex64",
        [
            "pg_dump @D.dump sha256 @V (verified after upload to cold storage)",
            "sha256sum /backups/full-2026-12-06.xbstream -> @V",
            "restore test OK, manifest checksum @V matched",
        ],
    ),
    "backup_md5": (
        "hex32",
        [
            'S3 ETag for the basebackup tar: "@V"',
            "md5 of mysql-bin.000217 on primary and replica both @V",
            "pg_verifybackup OK; backup_manifest file checksum @V",
        ],
    ),
    "flyway_checksum": (
        "none",
        [
            "Validate failed: Migration checksum mismatch for migration version 42 -> Applied to database : 1839284712 Resolved locally : -918273645",
            "flyway_schema_history row: version 17, checksum -1284937261, success true",
            "liquibase DATABASECHANGELOG MD5SUM 9:4f1c2e8a9b7d6c5e3f2a1b0c9d8e7f6a mismatch on changeset 112",
        ],
    ),
    "public_certificate": (
        "cert_b64",
        [
            "server CA for sslrootcert (public):\n-----BEGIN CERTIFICATE-----\n@V\n-----END CERTIFICATE-----",
            "rds-ca-rsa2048-g1 bundle cert body: @V",
            "pinned the postgres server cert: -----BEGIN CERTIFICATE----- @V -----END CERTIFICATE-----",
        ],
    ),
    "ssh_host_fingerprint": (
        "sha256fp",
        [
            "bastion @H host key SHA256:@V (ED25519)",
            "known_hosts mismatch on @H; new fingerprint SHA256:@V confirmed with the vendor",
            "tunnel for DBeaver: ssh -L 5432:@H:5432 bastion, host key SHA256:@V",
        ],
    ),
    "mongodb_shard_key": (
        "none",
        [
            'sh.shardCollection("@D.orders", { customerId: "hashed" })',
            "refining the shard key to { tenantId: 1, createdAt: 1 } because of jumbo chunks",
            "shard key for events is {region: 1, deviceId: 1}; balancer window 01:00-05:00",
        ],
    ),
    "dynamodb_keys": (
        "none",
        [
            "table @D: partition key PK (S), sort key SK (S); GSI1 on GSI1PK/GSI1SK",
            "aws dynamodb query --key-condition-expression 'PK = :pk AND begins_with(SK, :sk)'",
            "hot partition key TENANT#@S throttled at 3000 RCU",
        ],
    ),
    "sql_primary_key_ids": (
        "uuid",
        [
            "ALTER TABLE accounts ADD PRIMARY KEY (id); dup row id @V removed first",
            "customer row with primary key @V has the corrupted address",
            "idempotency key (uuid v4) @V used as the PK in payments_ledger",
        ],
    ),
    "hosts_and_ports": (
        "none",
        [
            "prod endpoints: @H:5432 (rw), @H:5433 (ro via pgbouncer), redis @H:6379",
            "orders-prod.cluster-ro-c1abcdxyz2.eu-west-1.rds.amazonaws.com:5432 is the reader endpoint",
            "Kafka brokers b-1.@D.kafka.eu-west-1.amazonaws.com:9096, b-2 same, SASL/SCRAM port",
        ],
    ),
    "password_policy_talk": (
        "none",
        [
            "replication user password rotated today; new one is in 1Password 'DB / repl' - not writing it here",
            "policy: DB service passwords 32+ chars, rotated every 90 days, never in profiles.yml",
            "reminder: the TDE keystore password and the backup cipher pass are escrowed with security, ask @U",
        ],
    ),
    "redacted_connection_string": (
        "stars",
        [
            "Server=@H;Database=@D;User Id=@U;Password=@V;",
            "jdbc:postgresql://@H:5432/@D?user=@U&password=@V",
            "mongodb+srv://@U:@V@cluster0.@S.mongodb.net/@D",
        ],
    ),
    "example_doc_password": (
        "example",
        [
            "docs example only: docker run -e POSTGRES_PASSWORD=@V postgres:16 (our real envs use secrets)",
            "README sample: jdbc:mysql://localhost:3306/test?user=root&password=@V",
            "the tutorial's placeholder password is @V; do not use it anywhere",
        ],
    ),
    "git_commit_sha": (
        "hex40",
        [
            "migration V43__add_orders_idx landed in commit @V",
            "dbt model change reverted: git revert @V",
            "schema drift started after @V",
        ],
    ),
    "mssql_rowversion": (
        "none",
        [
            "optimistic concurrency: rowversion 0x00000000000A7F3C didn't match, retry",
            "CDC __$seqval 0x0000002B00000D280004 for the update",
            "backup set GUID 3F2504E0-4F89-11D3-9A0C-0305E82C3301 in msdb.backupset",
        ],
    ),
    "etl_run_ids": (
        "none",
        [
            "airflow run_id scheduled__2026-12-06T02:00:00+00:00 failed on task load_fact_sales",
            "dbt invocation_id 7c0f1e9a-2b44-4d7e-9c41-0e1f2a3b4c5d, 212 models, 3 errors",
            "fivetran sync id for the salesforce connector: plain_vision_1234",
        ],
    ),
    "influx_org_bucket_ids": (
        "hex16",
        [
            "influx bucket list -> ID @V name telemetry retention 30d",
            "org id @V, bucket id @S",
            'telegraf output bucket_id = "@V" (token comes from env INFLUX_TOKEN)',
        ],
    ),
    "crc_page_checksum": (
        "none",
        [
            "WARNING: page verification failed, calculated checksum 47182 but expected 12903",
            "pg_checksums --check: Bad checksums 0, data checksum version 1",
            "innodb page corruption, crc32 0x9A3F21C7 != stored 0x1B22E4F0",
        ],
    ),
}


def corpus() -> list[dict]:
    r = random.Random(SEED)

    def pick(chars, n):
        return "".join(r.choice(chars) for _ in range(n))

    def b64(nbytes, url=False):
        raw = bytes(r.randrange(256) for _ in range(nbytes))
        return (base64.urlsafe_b64encode if url else base64.b64encode)(raw).decode()

    def password():
        while True:
            s = pick(PWCH, r.randint(16, 26))
            if (
                any(c.isupper() for c in s)
                and any(c.islower() for c in s)
                and any(c.isdigit() for c in s)
            ):
                return s

    def uuid4():
        h = pick("0123456789abcdef", 32)
        h = h[:12] + "4" + h[13:16] + r.choice("89ab") + h[17:]
        return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"

    hexd = "0123456789abcdef"
    envnames = [
        "${DB_PASSWORD}",
        "${env:PG_PASSWORD}",
        "$(REDIS_PASSWORD)",
        "%MSSQL_PWD%",
        "${SR_API_KEY}:${SR_API_SECRET}",
        "{{ env_var('DBT_PASSWORD') }}",
        "${KAFKA_CLIENT_SECRET}",
        "$ORACLE_PWD",
        "${vault:secret/data/db#password}",
    ]
    angles = [
        "<password>",
        "<PASSWORD>",
        "<your-password>",
        "<db_password>",
        "<redacted>",
        "<secret>",
    ]

    gens = {
        "pw": password,
        "vaultpw": lambda: "A1a-" + pick(ALNUM, 20),
        "b64_96": lambda: b64(96),
        "b64_32": lambda: b64(32),
        "b64_48": lambda: b64(48),
        "b64_64": lambda: b64(64),
        "b64_64url": lambda: b64(64, url=True).rstrip("=") + "==",
        "hex64": lambda: pick(hexd, 64),
        "hex40": lambda: pick(hexd, 40),
        "hex32": lambda: pick(hexd, 32),
        "hex24": lambda: pick(hexd, 24),
        "hex16": lambda: pick(hexd, 16),
        "alnum32": lambda: pick(ALNUM, 32),
        "dapi": lambda: "dapi" + pick(hexd, 32) + r.choice(["", "-2", "-3"]),
        "dose": lambda: "dose" + pick(hexd, 32),
        "fernet": lambda: b64(32, url=True),
        "cflt_secret": lambda: pick(ALNUM + "+/", 64),
        "cflt_key": lambda: pick(string.ascii_uppercase + string.digits, 16),
        "es_apikey": lambda: base64.b64encode(
            (pick(ALNUM + "-_", 20) + ":" + pick(ALNUM + "-_", 22)).encode()
        ).decode(),
        "es_keyid": lambda: pick(ALNUM + "-_", 20),
        "es_keyid22": lambda: pick(ALNUM + "-_", 22),
        "kafka_cid": lambda: pick(ALNUM + "-_", 22),
        "md5verifier": lambda: "md5" + pick(hexd, 32),
        "scramverifier": lambda: "SCRAM-SHA-256$4096:" + b64(16) + "$" + b64(32) + ":" + b64(32),
        "pem_json": lambda: (
            "-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQ"
            + "\\n".join(b64(48) for _ in range(5))
            + "\\n-----END PRIVATE KEY-----\\n"
        ),
        "envref": lambda: r.choice(envnames),
        "angle": lambda: r.choice(angles),
        "none": lambda: "",
        "jinja": lambda: r.choice(
            [
                "\"{{ env_var('SNOWFLAKE_PASSWORD') }}\"",
                "\"{{ env_var('DBT_ENV_SECRET_PG_PASS') }}\"",
                "\"{{ env_var('REDSHIFT_PASSWORD') }}\"",
            ]
        ),
        "cfgprovider": lambda: r.choice(
            [
                "${file:/opt/kafka/secrets/jaas.properties:password}",
                "${directory:/mnt/secrets:db-password}",
                "${env:KAFKA_SASL_PASSWORD}",
            ]
        ),
        "masked": lambda: r.choice(["***", "****", "xxxxxx"]),
        "stars": lambda: r.choice(["********", "[REDACTED]", "•••••••••", "<hidden>"]),
        "example": lambda: r.choice(
            ["mysecretpassword", "changeme", "example-password", "P@ssw0rd"]
        ),
        "uuid": uuid4,
        "neo4jid": lambda: f"4:{uuid4()}:{r.randint(0, 99999)}",
        "sfqid": lambda: (
            f"01{pick(hexd, 6)}-0{pick(hexd, 3)}-{pick(hexd, 4)}-0000-{pick(hexd, 12)}"
        ),
        "pubkey_b64": lambda: "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA" + b64(200) + "IDAQAB",
        "sha256fp": lambda: b64(32).rstrip("="),
        "dbx_cluster": lambda: (
            f"{r.randint(1000, 1231):04d}-{r.randint(100000, 235959)}-{pick(string.ascii_lowercase + string.digits, 8)}"
        ),
        "dapi_redacted": lambda: "dapi" + pick(hexd, 4) + "*" * 28,
        "bqjob": lambda: (
            f"{r.choice(['proj-analytics', 'dwh-prod-42'])}:US.bquxjob_{pick(hexd, 8)}_{pick(hexd, 12)}"
        ),
        "scram_salt": lambda: b64(16),
        "lsn": lambda: f"{r.randint(0, 0x3F):X}/{r.randint(0, 0xFFFFFFFF):X}",
        "walseg": lambda: f"{r.randint(1, 9):08X}{r.randint(0, 0x3F):08X}{r.randint(0, 0xFF):08X}",
        "gtid": lambda: f"{uuid4()}:1-{r.randint(1000, 99999999)}",
        "queryid": lambda: str(r.randint(-(2**63), 2**63 - 1)),
        "rowid": lambda: (
            "AAA"
            + pick(ALNUM, 3)
            + "AA"
            + pick(string.ascii_uppercase, 4)
            + "AAA"
            + pick(ALNUM, 2)
            + "AA"
            + r.choice("ABC")
        ),
        "tde_keyid": lambda: (
            "A" + pick(ALNUM + "+/", 43) + "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
        ),
        "mssql_lsn": lambda: (
            f"{r.randint(1, 0xFFFF):08X}:{r.randint(1, 0xFFFFFF):08X}:{r.randint(1, 0xFF):04X}"
        ),
        "kms_arn": lambda: f"arn:aws:kms:eu-west-1:{r.randint(10**11, 10**12 - 1)}:key/{uuid4()}",
        "sm_arn": lambda: (
            f"arn:aws:secretsmanager:us-east-1:{r.randint(10**11, 10**12 - 1)}:secret:rds!db-{uuid4()}-{pick(ALNUM, 6)}"
        ),
        "cert_b64": lambda: "MIIDdzCCAl+gAwIBAgIE" + b64(180),
    }

    hosts = [
        "pg-prod-01.internal",
        "db-replica-2.eu-west-1.compute.internal",
        "10.20.4.17",
        "mysql-billing.corp.example.net",
        "sqlprod03",
        "warehouse.data.internal",
        "orders-db.cxyz12ab34.us-east-1.rds.amazonaws.com",
        "analytics-ch.internal",
        "es-hot-1.logging.svc",
        "kafka-0.kafka-headless.streams.svc.cluster.local",
    ]
    users = [
        "app_rw",
        "etl_loader",
        "report_ro",
        "svc_orders",
        "dbt_user",
        "airflow",
        "dba_ops",
        "ingest",
    ]
    dbs = ["orders", "billing", "analytics", "inventory", "crm", "ledger", "events", "warehouse"]

    rows: list[dict] = []

    def emit(label, kinds):
        for kind, (gen, templates) in kinds.items():
            for t in templates:
                v = gens[gen]() if "@V" in t else ""
                text = (
                    t.replace("@V", v)
                    .replace("@H", r.choice(hosts))
                    .replace("@U", r.choice(users))
                    .replace("@D", r.choice(dbs))
                    .replace("@S", pick(string.ascii_lowercase + string.digits, 8))
                    .replace("@K", pick(string.ascii_uppercase + string.digits, 16))
                )
                if label == "secret":
                    assert v and v in text, (kind, t)
                else:
                    assert v in text, (kind, t)
                rows.append({"label": label, "kind": kind, "text": text, "value": v})

    emit("secret", SECRET_KINDS)
    emit("benign", BENIGN_KINDS)
    texts = [row["text"] for row in rows]
    assert len(texts) == len(set(texts))
    return rows


def main() -> None:
    rows = corpus()
    out = "\n".join(json.dumps(row, ensure_ascii=False) for row in rows) + "\n"
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w", encoding="utf-8") as fh:
            fh.write(out)
    else:
        sys.stdout.write(out)


if __name__ == "__main__":
    main()
