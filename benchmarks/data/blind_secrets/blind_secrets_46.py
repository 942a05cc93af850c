# ruff: noqa: E501
"""Blind secret-detector corpus 46: enterprise .NET and Windows developers.

Brief: appsettings.json and web.config fragments, user-secrets, connection strings (SQL Server,
Cosmos DB, Service Bus, Event Hubs, Redis, Storage), Entra ID / Azure AD app registrations,
certificates and PFX passwords, IIS and Windows services, PowerShell scripts and credential
objects, NuGet feeds and Azure DevOps PATs, Key Vault references, Dynamics 365 and SharePoint
integrations, SSIS packages and SQL Agent jobs.

Written blind on 2026-12-07: the author did not read the detector, its tests or any earlier corpus.

Run: python benchmarks/data/blind_secrets/blind_secrets_46.py OUT.jsonl  (stdout without OUT)

Kinds, grouped:

secret:
    sql_connstring_password, sql_sa_password, cosmos_account_key, cosmos_mongo_password,
    servicebus_sas_key, eventhub_sas_key, iothub_sas_key, redis_access_key, storage_account_key,
    storage_sas_signature, appconfig_secret, signalr_access_key, entra_client_secret,
    dynamics_client_secret, dynamics_user_password, sharepoint_app_secret, pfx_password,
    signtool_password, private_key_pem, pfx_base64_blob, pwsh_plaintext_securestring,
    net_use_password, cmdkey_password, schtasks_password, windows_service_password,
    iis_apppool_password, iis_virtualdir_password, machinekey_validation, machinekey_decryption,
    dataprotection_master_key, azure_devops_pat, azure_devops_pat_new, nuget_feed_password,
    nuget_org_api_key, github_pat, ssis_package_password, ssis_connmgr_password,
    sql_credential_secret, sql_login_create, linked_server_password, keyvault_secret_value,
    user_secrets_json, jwt_signing_key, aes_encryption_key, smtp_password, sendgrid_api_key,
    ldap_bind_password, function_key, function_master_key, azure_openai_key, acr_admin_password,
    publish_profile_password, octopus_api_key, aws_secret_key, npgsql_password,
    rabbitmq_uri_password, basic_auth_header, bearer_access_token, msal_refresh_token,
    aspnet_auth_cookie, teams_webhook_url, bitlocker_recovery_password, laps_password,
    unattend_domain_join_password, stripe_secret_key, elastic_api_key,
    identityserver_client_secret, env_connstring_password, winrm_password

benign:
    keyvault_reference, keyvault_reference_name, keyvault_key_id,
    integrated_security_connstring, managed_identity_connstring, azurite_dev_key,
    cosmos_emulator_key, use_dev_storage, placeholder_password, placeholder_client_secret,
    env_var_reference, pipeline_variable_reference, redacted_password, redacted_sas,
    redacted_account_key, user_secrets_id, user_secrets_set_reference, nuget_content_hash,
    public_key_token, strong_name_public_key, cert_thumbprint, cert_serial, public_cert_pem,
    jwks_modulus, ec_public_key, ssh_public_key, tenant_client_ids, client_secret_metadata,
    app_id_uri, instrumentation_guid_placeholder, subscription_resource_id, windows_sid,
    gmsa_account, apppool_identity, machinekey_autogenerate, dataprotection_key_id,
    pat_talk_no_value, masked_pat, nuget_config_env_reference, nuget_source_url,
    servicebus_no_key, eventhub_offsets, redis_no_password, redis_cache_key_name, blob_etag,
    cosmos_rid, cosmos_continuation, request_correlation_id, d365_record_ids,
    sharepoint_drive_item_id, sharepoint_site_id, ssis_dontsavesensitive, ssis_package_dtsid,
    sql_agent_job_id, sql_password_hash_ref, aspnet_identity_hash, bcrypt_hash, security_stamp,
    sri_hash, msi_sha256, git_commit_sha, stripe_publishable_key, recaptcha_site_key,
    bitlocker_key_id, get_credential_prompt, export_clixml_path, secret_management_module,
    password_property_code, password_policy_talk, registry_key_path, cancellation_token,
    primary_key_column, hresult_code, entra_secret_expired_revoked, kv_secret_version_id,
    app_service_publish_talk, jwt_header_only, od_etag_version

Every value is generated from random.Random(SEED), no real credential anywhere. The two emulator keys are the
fixed, publicly documented Azurite / Cosmos emulator keys.
"""

import json
import random
import string
import sys

SEED = 4646

B64 = string.ascii_letters + string.digits + "+/"
B64U = string.ascii_letters + string.digits + "-_"
ALNUM = string.ascii_letters + string.digits
LOWER_NUM = string.ascii_lowercase + string.digits
HEX = "0123456789abcdef"
B32L = "abcdefghijklmnopqrstuvwxyz234567"
UPPER_NUM = string.ascii_uppercase + string.digits

AZURITE_KEY = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFMeeOsjEBtxm5H7x9lK0/9g=="
COSMOS_EMU_KEY = (
    "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw=="
)


def corpus() -> list[dict]:
    r = random.Random(SEED)

    def s(alpha, n):
        return "".join(r.choice(alpha) for _ in range(n))

    def b64(nbytes):
        n = (nbytes + 2) // 3 * 4
        pad = (3 - nbytes % 3) % 3
        return s(B64, n - pad) + "=" * pad

    def guid():
        return "-".join(s(HEX, k) for k in (8, 4, 4, 4, 12))

    def pw():
        words = ["Winter", "Contoso", "Fabrikam", "Northwind", "Tailspin", "Harbor", "Falcon"]
        return r.choice(words) + s(string.digits, 2) + r.choice("!#$%&*") + s(ALNUM, 6)

    def strongpw():
        return s(ALNUM + "!#%*-_", r.randint(16, 24))

    def entra_secret():
        return s(ALNUM, 3) + r.choice(string.digits) + "Q~" + s(ALNUM + "~_.-", 34)

    def jwt():
        hdr = "eyJ0eXAiOiJKV1QiLCJhbGciOiJSUzI1NiIsIng1dCI6I" + s(B64U, 40)
        return hdr + "." + "eyJhdWQiOi" + s(B64U, 220) + "." + s(B64U, 342)

    S = {
        "sql_connstring_password": (
            pw,
            [
                'appsettings.Production.json has "Default": "Server=tcp:sql-erp-prod.database.windows.net,1433;Initial Catalog=Erp;User ID=erp_app;Password={v};Encrypt=True;"',
                "prod SQL for the billing API: Data Source=SQLPRD02\\BILLING;Database=Billing;User Id=billing_rw;Password={v};TrustServerCertificate=true",
                '<add name="LegacyDb" connectionString="server=10.4.1.20;database=Orders;uid=orders_web;pwd={v}" providerName="System.Data.SqlClient" />',
            ],
        ),
        "sql_sa_password": (
            strongpw,
            [
                "docker run -e ACCEPT_EULA=Y -e MSSQL_SA_PASSWORD='{v}' -p 1433:1433 mcr.microsoft.com/mssql/server:2022-latest  (this is the shared QA box, same sa pw as staging)",
                "staging SQL Server sa login: sa / {v} -- only use for restores",
            ],
        ),
        "cosmos_account_key": (
            lambda: b64(64),
            [
                '"CosmosDb": {{ "Endpoint": "https://cosmos-orders-prod.documents.azure.com:443/", "Key": "{v}" }}',
                "AccountEndpoint=https://acme-catalog.documents.azure.com:443/;AccountKey={v};",
                "cosmos primary key for the telemetry account (copied from portal > Keys): {v}",
            ],
        ),
        "cosmos_mongo_password": (
            lambda: b64(64),
            [
                "mongodb://acme-feed:{v}@acme-feed.mongo.cosmos.azure.com:10255/?ssl=true&replicaSet=globaldb&retrywrites=false",
            ],
        ),
        "servicebus_sas_key": (
            lambda: b64(32),
            [
                "Endpoint=sb://sb-fulfilment-prod.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey={v}",
                "ServiceBus__ConnectionString set on the app service, key part is {v} (RootManage, yes I know)",
                "sender policy 'orders-send' primary key = {v}",
            ],
        ),
        "eventhub_sas_key": (
            lambda: b64(32),
            [
                "Endpoint=sb://evhns-telemetry.servicebus.windows.net/;SharedAccessKeyName=listen-func;SharedAccessKey={v};EntityPath=device-events",
                "event hub 'clickstream' send key: {v}",
            ],
        ),
        "iothub_sas_key": (
            lambda: b64(32),
            [
                "HostName=iot-plant-weu.azure-devices.net;DeviceId=press-07;SharedAccessKey={v}",
                "iothubowner key for the plant hub -> {v}",
            ],
        ),
        "redis_access_key": (
            lambda: b64(32),
            [
                '"Redis": "redis-session-prod.redis.cache.windows.net:6380,password={v},ssl=True,abortConnect=False"',
                "Azure Cache for Redis primary access key: {v}",
                "redis-cli -h cache-eu.redis.cache.windows.net -p 6380 --tls -a '{v}'",
            ],
        ),
        "storage_account_key": (
            lambda: b64(64),
            [
                "DefaultEndpointsProtocol=https;AccountName=stinvoicesprod;AccountKey={v};EndpointSuffix=core.windows.net",
                "az storage blob upload --account-name stbackups01 --account-key {v} -c sql -f nightly.bak",
                "$ctx = New-AzStorageContext -StorageAccountName 'starchive' -StorageAccountKey '{v}'",
            ],
        ),
        "storage_sas_signature": (
            lambda: b64(32).replace("+", "%2B").replace("/", "%2F").replace("=", "%3D"),
            [
                "upload URL for the vendor: https://stdrop.blob.core.windows.net/inbound?sv=2022-11-02&ss=b&srt=co&sp=rwlc&se=2027-12-31T00:00:00Z&spr=https&sig={v}",
                "SAS for the export container (valid a year): sp=racwdl&st=2026-12-01&se=2027-12-01&sv=2022-11-02&sr=c&sig={v}",
            ],
        ),
        "appconfig_secret": (
            lambda: b64(32),
            [
                "App Configuration conn string: Endpoint=https://appcs-shared.azconfig.io;Id=Xm2k-l0-s0:{n};Secret={v}",
            ],
        ),
        "signalr_access_key": (
            lambda: b64(32),
            [
                "Endpoint=https://sigr-notify.service.signalr.net;AccessKey={v};Version=1.0;",
            ],
        ),
        "entra_client_secret": (
            entra_secret,
            [
                '"AzureAd": {{ "Instance": "https://login.microsoftonline.com/", "TenantId": "{g1}", "ClientId": "{g2}", "ClientSecret": "{v}" }}',
                "app reg 'hr-sync-daemon' new client secret (expires 2027-06): {v}",
                "az login --service-principal -u {g2} -p '{v}' --tenant {g1}",
                "$secret = ConvertTo-SecureString '{v}' -AsPlainText -Force; Connect-AzAccount -ServicePrincipal -Credential (New-Object PSCredential('{g2}', $secret)) -Tenant {g1}",
            ],
        ),
        "dynamics_client_secret": (
            entra_secret,
            [
                "Dataverse: AuthType=ClientSecret;Url=https://contoso-prod.crm4.dynamics.com;ClientId={g2};ClientSecret={v}",
                "D365 integration user app secret for the Logic App = {v}",
            ],
        ),
        "dynamics_user_password": (
            pw,
            [
                "CrmServiceClient conn: AuthType=Office365;Username=svc-crm@contoso.com;Password={v};Url=https://contoso.crm.dynamics.com",
            ],
        ),
        "sharepoint_app_secret": (
            lambda: b64(32),
            [
                "SharePoint add-in (AppRegNew.aspx) client id {g2}, client secret {v}",
                "Connect-PnPOnline -Url https://contoso.sharepoint.com/sites/hr -ClientId {g2} -ClientSecret '{v}'",
            ],
        ),
        "pfx_password": (
            strongpw,
            [
                "wildcard cert for *.contoso.com is in \\\\fs01\\certs\\wildcard-2027.pfx, PFX password {v}",
                "Import-PfxCertificate -FilePath .\\api.pfx -CertStoreLocation Cert:\\LocalMachine\\My -Password (ConvertTo-SecureString '{v}' -AsPlainText -Force)",
                '"Kestrel": {{ "Certificates": {{ "Default": {{ "Path": "certs/api.pfx", "Password": "{v}" }} }} }}',
            ],
        ),
        "signtool_password": (
            strongpw,
            [
                "signtool sign /f codesign.pfx /p {v} /fd sha256 /tr http://timestamp.digicert.com Setup.exe",
            ],
        ),
        "private_key_pem": (
            lambda: "MIIEv" + s(B64, 60),
            [
                "exported the api key pair for nginx:\n-----BEGIN PRIVATE KEY-----\n{v}\n...\n-----END PRIVATE KEY-----",
                "openssl pkcs12 -in api.pfx -nocerts -nodes gave\n-----BEGIN RSA PRIVATE KEY-----\n{v}",
            ],
        ),
        "pfx_base64_blob": (
            lambda: "MIIKYQIBAzCCCh" + s(B64, 120),
            [
                '"SigningCertificate": {{ "Base64": "{v}", "Password": "" }}  // pfx with the private key, no password',
            ],
        ),
        "pwsh_plaintext_securestring": (
            pw,
            [
                "$pw = ConvertTo-SecureString -String '{v}' -AsPlainText -Force\n$cred = [pscredential]::new('CORP\\svc-deploy', $pw)",
                "In the deploy.ps1: $cred = New-Object System.Management.Automation.PSCredential ('svc-sql', (ConvertTo-SecureString \"{v}\" -AsPlainText -Force))",
            ],
        ),
        "net_use_password": (
            pw,
            [
                "net use \\\\fs02\\drop /user:CORP\\svc-build {v} /persistent:no",
            ],
        ),
        "cmdkey_password": (
            pw,
            [
                "cmdkey /generic:TERMSRV/jump01 /user:CORP\\adm-jdoe /pass:{v}",
            ],
        ),
        "schtasks_password": (
            pw,
            [
                'schtasks /Create /TN "Nightly ETL" /TR C:\\etl\\run.cmd /SC DAILY /ST 02:00 /RU CORP\\svc-etl /RP "{v}"',
            ],
        ),
        "windows_service_password": (
            pw,
            [
                'sc.exe config "OrderProcessor" obj= "CORP\\svc-orders" password= "{v}"',
                "New-Service -Name QueueWorker -BinaryPathName C:\\svc\\QueueWorker.exe -Credential $c   # svc-queue / {v}",
            ],
        ),
        "iis_apppool_password": (
            pw,
            [
                "appcmd set apppool /apppool.name:Intranet /processModel.identityType:SpecificUser /processModel.userName:CORP\\svc-intranet /processModel.password:{v}",
                "IIS pool 'ReportsPool' runs as CORP\\svc-reports, password is {v}",
            ],
        ),
        "iis_virtualdir_password": (
            pw,
            [
                '<virtualDirectory path="/files" physicalPath="\\\\nas01\\web" userName="CORP\\svc-web" password="{v}" />',
            ],
        ),
        "machinekey_validation": (
            lambda: s(HEX.upper(), 128),
            [
                '<machineKey validationKey="{v}" decryptionKey="AutoGenerate" validation="HMACSHA256" />',
            ],
        ),
        "machinekey_decryption": (
            lambda: s(HEX.upper(), 64),
            [
                'web farm machineKey (all nodes must match): decryptionKey="{v}" decryption="AES"',
            ],
        ),
        "dataprotection_master_key": (
            lambda: b64(64),
            [
                'key-{g1}.xml from the shared keyring:\n<descriptor><encryption algorithm="AES_256_CBC" /><masterKey p4:requiresEncryption="true"><value>{v}</value></masterKey></descriptor>',
            ],
        ),
        "azure_devops_pat": (
            lambda: s(B32L, 52),
            [
                "ADO PAT for the release pipeline (Code: Read & Write, 1y): {v}",
                "git clone https://build:{v}@dev.azure.com/contoso/Platform/_git/infra",
                "$env:AZURE_DEVOPS_EXT_PAT = '{v}'; az devops login --organization https://dev.azure.com/contoso",
            ],
        ),
        "azure_devops_pat_new": (
            lambda: s(ALNUM, 52) + "AAAAAAAAA" + s(ALNUM, 3) + "AZDO" + s(ALNUM, 4),
            [
                "new-format PAT (Packaging: Read) for the build agents: {v}",
            ],
        ),
        "nuget_feed_password": (
            lambda: s(B32L, 52),
            [
                '<packageSourceCredentials><ContosoFeed><add key="Username" value="az" /><add key="ClearTextPassword" value="{v}" /></ContosoFeed></packageSourceCredentials>',
                "dotnet nuget add source https://pkgs.dev.azure.com/contoso/_packaging/internal/nuget/v3/index.json -n internal -u any -p {v} --store-password-in-clear-text",
            ],
        ),
        "nuget_org_api_key": (
            lambda: "oy2" + s(string.ascii_lowercase + string.digits, 43),
            [
                "dotnet nuget push bin/Release/Contoso.Logging.3.2.0.nupkg --api-key {v} --source https://api.nuget.org/v3/index.json",
                "nuget.org push key for the Contoso.* glob: {v}",
            ],
        ),
        "github_pat": (
            lambda: "ghp_" + s(ALNUM, 36),
            [
                "GitHub Packages nuget source uses my PAT {v} as password",
            ],
        ),
        "ssis_package_password": (
            pw,
            [
                'dtexec /F "D:\\SSIS\\LoadCustomers.dtsx" /DECRYPT {v} /SET \\Package.Variables[User::RunDate].Value;2026-12-06',
                "SSIS packages are EncryptSensitiveWithPassword, the package password is {v}",
            ],
        ),
        "ssis_connmgr_password": (
            pw,
            [
                'SQL Agent step command: /ISSERVER "\\SSISDB\\Finance\\GL\\Load.dtsx" /SET "\\Package.Connections[SRC_ORACLE].Properties[Password]";"{v}"',
            ],
        ),
        "sql_credential_secret": (
            pw,
            [
                "CREATE CREDENTIAL EtlProxyCred WITH IDENTITY = 'CORP\\svc-etl', SECRET = '{v}';",
                "EXEC msdb.dbo.sp_add_proxy for the agent jobs uses CORP\\svc-ssis, pwd {v}",
            ],
        ),
        "sql_login_create": (
            strongpw,
            [
                "CREATE LOGIN report_reader WITH PASSWORD = N'{v}', CHECK_POLICY = ON;",
                "ALTER LOGIN app_etl WITH PASSWORD = '{v}'  -- rotated today",
            ],
        ),
        "linked_server_password": (
            pw,
            [
                "EXEC sp_addlinkedsrvlogin @rmtsrvname = N'ORA_FIN', @useself = 'FALSE', @rmtuser = N'finread', @rmtpassword = N'{v}';",
            ],
        ),
        "keyvault_secret_value": (
            strongpw,
            [
                'az keyvault secret show --vault-name kv-erp-prod -n SqlAdminPassword\n{{ "id": "https://kv-erp-prod.vault.azure.net/secrets/SqlAdminPassword/{h32}", "value": "{v}" }}',
                "pulled it out of kv-shared (secret 'smtp-relay-pass'): {v}",
            ],
        ),
        "user_secrets_json": (
            pw,
            [
                "dotnet user-secrets list\nConnectionStrings:Crm = Server=crmsql01;Database=MSCRM;User Id=crm_read;Password={v}",
                '%APPDATA%\\Microsoft\\UserSecrets\\{g1}\\secrets.json -> {{ "Smtp:Password": "{v}" }}',
            ],
        ),
        "jwt_signing_key": (
            lambda: s(ALNUM, 48),
            [
                '"Jwt": {{ "Issuer": "https://auth.contoso.com", "Audience": "contoso-api", "SigningKey": "{v}" }}',
                "symmetric key for issuing our API tokens (HS256): {v}",
            ],
        ),
        "aes_encryption_key": (
            lambda: b64(32),
            [
                '"FieldEncryption": {{ "Key": "{v}", "IV": "{iv}" }}  // used for SSN columns',
            ],
        ),
        "smtp_password": (
            pw,
            [
                '<mailSettings><smtp from="noreply@contoso.com"><network host="smtp.office365.com" port="587" userName="noreply@contoso.com" password="{v}" enableSsl="true" /></smtp></mailSettings>',
                "Send-MailMessage relay account noreply@contoso.com, password {v}",
            ],
        ),
        "sendgrid_api_key": (
            lambda: "SG." + s(B64U, 22) + "." + s(B64U, 43),
            [
                '"SendGrid": {{ "ApiKey": "{v}" }}',
            ],
        ),
        "ldap_bind_password": (
            pw,
            [
                '"Ldap": {{ "Server": "ldaps://dc01.corp.contoso.com", "BindDn": "CN=svc-ldap,OU=Service,DC=corp,DC=contoso,DC=com", "BindPassword": "{v}" }}',
            ],
        ),
        "function_key": (
            lambda: s(B64U, 54) + "==",
            [
                "call it with https://func-orders.azurewebsites.net/api/ImportOrders?code={v}",
                "x-functions-key for the webhook: {v}",
            ],
        ),
        "function_master_key": (
            lambda: s(B64U, 54) + "==",
            [
                "_master host key on func-integration (admin endpoints): {v}",
            ],
        ),
        "azure_openai_key": (
            lambda: s(HEX, 32),
            [
                '"AzureOpenAI": {{ "Endpoint": "https://oai-copilot-weu.openai.azure.com/", "ApiKey": "{v}", "Deployment": "gpt-4o" }}',
                "Ocp-Apim-Subscription-Key: {v}   (the APIM product key for partners)",
            ],
        ),
        "acr_admin_password": (
            lambda: s(ALNUM + "+/", 52),
            [
                "docker login crcontoso.azurecr.io -u crcontoso -p {v}",
            ],
        ),
        "publish_profile_password": (
            lambda: s(ALNUM, 60),
            [
                '<publishProfile profileName="app-portal - Web Deploy" publishMethod="MSDeploy" userName="$app-portal" userPWD="{v}" />',
                "msdeploy via dotnet publish /p:PublishProfile=prod /p:UserName=$app-portal /p:Password={v}",
            ],
        ),
        "octopus_api_key": (
            lambda: "API-" + s(UPPER_NUM, 27),
            [
                "octo.exe create-release --project Portal --server https://octo.contoso.com --apiKey {v}",
            ],
        ),
        "aws_secret_key": (
            lambda: s(ALNUM + "+/", 40),
            [
                '"AWS": {{ "Region": "eu-west-1", "AccessKey": "AKIA{ak}", "SecretKey": "{v}" }}',
            ],
        ),
        "npgsql_password": (
            pw,
            [
                "Host=pg-analytics.postgres.database.azure.com;Database=events;Username=ingest@pg-analytics;Password={v};SslMode=Require",
            ],
        ),
        "rabbitmq_uri_password": (
            pw,
            [
                '"RabbitMq": "amqp://masstransit:{v}@rabbit01.corp.contoso.com:5672/orders"',
            ],
        ),
        "basic_auth_header": (
            lambda: b64(r.randint(20, 30)),
            [
                "Hangfire dashboard behind basic auth; curl -H 'Authorization: Basic {v}' https://jobs.contoso.com/hangfire",
            ],
        ),
        "bearer_access_token": (
            jwt,
            [
                "token I used against Graph a minute ago (1h validity):\nAuthorization: Bearer {v}",
            ],
        ),
        "msal_refresh_token": (
            lambda: "0.AR" + s(B64U, 240),
            [
                'msal token cache entry: "RefreshToken": {{ "secret": "{v}", "credential_type": "RefreshToken" }}',
            ],
        ),
        "aspnet_auth_cookie": (
            lambda: "CfDJ8" + s(B64U, 180),
            [
                "repro the bug with my session: Cookie: .AspNetCore.Cookies={v}",
                ".ASPXAUTH for admin on the old webforms app: {v}",
            ],
        ),
        "teams_webhook_url": (
            lambda: (
                "https://contoso.webhook.office.com/webhookb2/"
                + guid()
                + "@"
                + guid()
                + "/IncomingWebhook/"
                + s(HEX, 32)
                + "/"
                + guid()
                + "/V2"
                + s(B64U, 40)
            ),
            [
                "alerts go to the Ops Teams channel via {v}",
            ],
        ),
        "bitlocker_recovery_password": (
            lambda: "-".join(s(string.digits, 6) for _ in range(8)),
            [
                "BitLocker recovery for LT-4471 (Key ID {g1}): {v}",
            ],
        ),
        "laps_password": (
            lambda: s(ALNUM + "#%{}+", 20),
            [
                "Get-LapsADPassword -Identity SRV-APP03 -AsPlainText -> Password: {v}",
            ],
        ),
        "unattend_domain_join_password": (
            pw,
            [
                "<Credentials><Domain>corp.contoso.com</Domain><Username>svc-join</Username><Password>{v}</Password></Credentials>",
            ],
        ),
        "stripe_secret_key": (
            lambda: "sk_live_" + s(ALNUM, 99),
            [
                '"Stripe": {{ "SecretKey": "{v}", "PublishableKey": "pk_live_{pk}" }}',
            ],
        ),
        "elastic_api_key": (
            lambda: b64(r.choice([45, 48])),
            [
                "Serilog Elasticsearch sink: ApiKey {v}",
            ],
        ),
        "identityserver_client_secret": (
            lambda: s(ALNUM, 32),
            [
                'new Client {{ ClientId = "partner-portal", ClientSecrets = {{ new Secret("{v}".Sha256()) }} }}',
            ],
        ),
        "env_connstring_password": (
            strongpw,
            [
                "export ConnectionStrings__Reporting='Server=rpt01;Database=DW;User Id=dw_etl;Password={v};'",
                "ConnectionStrings__Hangfire set in the container env: Server=sql-jobs;Database=Hangfire;User ID=hf;Password={v}",
            ],
        ),
        "winrm_password": (
            pw,
            [
                "Enter-PSSession -ComputerName web04 -Credential (Get-Credential) -- typed CORP\\adm-build / {v}",
            ],
        ),
    }

    B = {
        "keyvault_reference": (
            lambda: (
                "@Microsoft.KeyVault(SecretUri=https://kv-erp-prod.vault.azure.net/secrets/SqlPassword/"
                + s(HEX, 32)
                + ")"
            ),
            [
                "app setting SqlPassword = {v}",
                "ConnectionStrings__Default on the function app now points at {v} instead of the raw string",
            ],
        ),
        "keyvault_reference_name": (
            lambda: "@Microsoft.KeyVault(VaultName=kv-shared-weu;SecretName=ServiceBusConn)",
            [
                "ServiceBus__Conn = {v}  (managed identity has Get on secrets)",
            ],
        ),
        "keyvault_key_id": (
            lambda: "https://kv-dp.vault.azure.net/keys/dataprotection/" + s(HEX, 32),
            [
                'services.AddDataProtection().ProtectKeysWithAzureKeyVault(new Uri("{v}"), new DefaultAzureCredential());',
            ],
        ),
        "integrated_security_connstring": (
            lambda: "Server=SQLPRD02\\BILLING;Database=Billing;Integrated Security=SSPI;",
            [
                "billing app pool uses {v} so no password anywhere",
                '"Default": "{v}TrustServerCertificate=True"',
            ],
        ),
        "managed_identity_connstring": (
            guid,
            [
                "Server=tcp:sql-erp-prod.database.windows.net;Database=Erp;Authentication=Active Directory Managed Identity;User Id={v};",
                "Service Bus via MI: FullyQualifiedNamespace=sb-fulfilment-prod.servicebus.windows.net, client id {v}",
            ],
        ),
        "azurite_dev_key": (
            lambda: AZURITE_KEY,
            [
                "local dev storage (Azurite, the well-known emulator key from the docs): AccountName=devstoreaccount1;AccountKey={v};BlobEndpoint=http://127.0.0.1:10000/devstoreaccount1;",
            ],
        ),
        "cosmos_emulator_key": (
            lambda: COSMOS_EMU_KEY,
            [
                "Cosmos emulator on localhost:8081 uses the fixed published key {v} -- same on every dev box",
            ],
        ),
        "use_dev_storage": (
            lambda: "UseDevelopmentStorage=true",
            [
                '"AzureWebJobsStorage": "{v}" in local.settings.json',
            ],
        ),
        "placeholder_password": (
            lambda: r.choice(["<your-password>", "{{SQL_PASSWORD}}", "REPLACE_ME"]),
            [
                "template for new devs: Server=localhost;Database=Erp;User Id=sa;Password={v};",
            ],
        ),
        "placeholder_client_secret": (
            lambda: "xxxxx~xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
            [
                '"ClientSecret": "{v}" -- fill in from Key Vault, never commit the real one',
            ],
        ),
        "env_var_reference": (
            lambda: "$env:SQL_SA_PASSWORD",
            [
                "docker run -e MSSQL_SA_PASSWORD={v} ... (value comes from the pipeline secret)",
                "Invoke-Sqlcmd -ServerInstance sql01 -Username sa -Password {v} -Query 'SELECT 1'",
            ],
        ),
        "pipeline_variable_reference": (
            lambda: "$(NuGetFeedPat)",
            [
                "in azure-pipelines.yml the NuGetAuthenticate task is gone; we pass {v} which is a secret variable in the 'build-secrets' group",
                'sqlpackage /a:Publish /tcs:"...;Password={v}"  -- the var is locked in the library',
            ],
        ),
        "redacted_password": (
            lambda: "********",
            [
                "error log showed: Login failed for user 'erp_app'. Connection string: Server=tcp:sql-erp-prod;User ID=erp_app;Password={v};",
            ],
        ),
        "redacted_sas": (
            lambda: "sig=REDACTED",
            [
                "blob URL from the ticket (sig stripped before pasting): https://stdrop.blob.core.windows.net/inbound/file.csv?sv=2022-11-02&sr=b&{v}",
            ],
        ),
        "redacted_account_key": (
            lambda: "AccountKey=<redacted>",
            [
                "DefaultEndpointsProtocol=https;AccountName=stinvoicesprod;{v};EndpointSuffix=core.windows.net",
            ],
        ),
        "user_secrets_id": (
            guid,
            [
                "<UserSecretsId>{v}</UserSecretsId> added by dotnet user-secrets init",
                "secrets for Contoso.Api live under %APPDATA%\\Microsoft\\UserSecrets\\{v}\\ (not in the repo)",
            ],
        ),
        "user_secrets_set_reference": (
            lambda: 'dotnet user-secrets set "Smtp:Password" "$(Read-Host)"',
            [
                "onboarding: run {v} and type it from the vault",
            ],
        ),
        "nuget_content_hash": (
            lambda: b64(64),
            [
                'packages.lock.json: "Newtonsoft.Json": {{ "type": "Direct", "requested": "[13.0.3, )", "resolved": "13.0.3", "contentHash": "{v}" }}',
                '.nupkg.metadata for Contoso.Logging 3.2.0: "contentHash": "{v}", "source": "https://pkgs.dev.azure.com/contoso/_packaging/internal/nuget/v3/index.json"',
            ],
        ),
        "public_key_token": (
            lambda: s(HEX, 16),
            [
                "<bindingRedirect> for Contoso.Core, Version=4.0.0.0, Culture=neutral, PublicKeyToken={v}",
            ],
        ),
        "strong_name_public_key": (
            lambda: (
                "0024000004800000940000000602000000240000525341310004000001000100" + s(HEX, 256)
            ),
            [
                '[assembly: InternalsVisibleTo("Contoso.Core.Tests, PublicKey={v}")]',
            ],
        ),
        "cert_thumbprint": (
            lambda: s(HEX.upper(), 40),
            [
                '"CertificateThumbprint": "{v}" (loaded from LocalMachine\\My)',
                "WEBSITE_LOAD_CERTIFICATES={v} on the app service",
                "netsh http add sslcert ipport=0.0.0.0:443 certhash={v} appid={{{g1}}}",
            ],
        ),
        "cert_serial": (
            lambda: s(HEX, 32),
            [
                "renewed the wildcard; new serial number {v}, expires 2027-11-30",
            ],
        ),
        "public_cert_pem": (
            lambda: "MIIDdzCCAl+gAwIBAgIE" + s(B64, 64),
            [
                "public cert to upload to the app registration (no key in it):\n-----BEGIN CERTIFICATE-----\n{v}\n-----END CERTIFICATE-----",
            ],
        ),
        "jwks_modulus": (
            lambda: s(B64U, 342),
            [
                'jwks from login.microsoftonline.com: {{ "kty": "RSA", "use": "sig", "kid": "{k}", "n": "{v}", "e": "AQAB" }}',
            ],
        ),
        "ec_public_key": (
            lambda: "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE" + s(B64, 86) + "==",
            [
                "partner's public key for verifying their webhook signatures: {v}",
            ],
        ),
        "ssh_public_key": (
            lambda: "AAAAB3NzaC1yc2EAAAADAQABAAABgQ" + s(B64, 160),
            [
                "added to the build agent's authorized_keys: ssh-rsa {v} build@ado-agent-03",
            ],
        ),
        "tenant_client_ids": (
            guid,
            [
                '"AzureAd": {{ "TenantId": "{g1}", "ClientId": "{v}", "CallbackPath": "/signin-oidc" }}',
                "app registration hr-sync-daemon: Application (client) ID {v}, Object ID {g2}",
            ],
        ),
        "client_secret_metadata": (
            lambda: s(ALNUM, 3),
            [
                "Certificates & secrets shows: description 'ci', Secret ID {g1}, value starts with {v}..., expires 2027-06-01 -- value itself is only in kv-ci",
            ],
        ),
        "app_id_uri": (
            lambda: "api://" + guid(),
            [
                "expose the API as {v}/access_as_user and grant the SPA admin consent",
            ],
        ),
        "instrumentation_guid_placeholder": (
            lambda: "00000000-0000-0000-0000-000000000000",
            [
                '"ApplicationInsights": {{ "ConnectionString": "InstrumentationKey={v};IngestionEndpoint=https://westeurope-5.in.applicationinsights.azure.com/" }} (placeholder; real one from env)',
            ],
        ),
        "subscription_resource_id": (
            guid,
            [
                "/subscriptions/{v}/resourceGroups/rg-erp-prod/providers/Microsoft.KeyVault/vaults/kv-erp-prod",
            ],
        ),
        "windows_sid": (
            lambda: (
                "S-1-5-21-"
                + "-".join(str(r.randint(10**9, 4 * 10**9)) for _ in range(3))
                + "-"
                + str(r.randint(1100, 9000))
            ),
            [
                "svc-orders SID is {v}, add it to the folder ACL",
            ],
        ),
        "gmsa_account": (
            lambda: "CORP\\gmsa-orders$",
            [
                "OrderProcessor now runs as {v} (gMSA, password managed by AD, leave password blank in sc config)",
            ],
        ),
        "apppool_identity": (
            lambda: "IIS AppPool\\ReportsPool",
            [
                "grant {v} read on D:\\reports; identity is ApplicationPoolIdentity, no password to manage",
            ],
        ),
        "machinekey_autogenerate": (
            lambda: "AutoGenerate,IsolateApps",
            [
                '<machineKey validationKey="{v}" decryptionKey="{v}" validation="HMACSHA256" />',
            ],
        ),
        "dataprotection_key_id": (
            guid,
            [
                "keyring rotated, new default key id {v} (created 2026-12-01, expires 2027-03-01)",
            ],
        ),
        "pat_talk_no_value": (
            lambda: "",
            [
                "the ADO PAT for the nuget feed expired again; regenerate under User settings > Personal access tokens and put it in the 'build-secrets' library group",
                "Reminder: PATs max out at 1 year in our org policy; prefer workload identity federation for service connections",
            ],
        ),
        "masked_pat": (
            lambda: "***",
            [
                'pipeline log: git -c http.extraheader="AUTHORIZATION: bearer {v}" fetch --force --tags origin',
            ],
        ),
        "nuget_config_env_reference": (
            lambda: "%NUGET_FEED_PAT%",
            [
                '<add key="ClearTextPassword" value="{v}" />  -- resolved from env at restore time',
            ],
        ),
        "nuget_source_url": (
            lambda: "https://pkgs.dev.azure.com/contoso/_packaging/internal/nuget/v3/index.json",
            [
                "internal feed: {v} (auth via Azure Artifacts Credential Provider)",
            ],
        ),
        "servicebus_no_key": (
            lambda: (
                "Endpoint=sb://sb-fulfilment-prod.servicebus.windows.net/;Authentication=Managed Identity;EntityPath=orders"
            ),
            [
                "{v}",
            ],
        ),
        "eventhub_offsets": (
            lambda: str(r.randint(10**11, 10**12)),
            [
                "checkpoint for partition 3 in consumer group $Default: offset {v}, sequence number {sq}",
            ],
        ),
        "redis_no_password": (
            lambda: "localhost:6379,abortConnect=false,connectTimeout=5000",
            [
                '"Redis": "{v}" for local docker redis (no auth)',
            ],
        ),
        "redis_cache_key_name": (
            lambda: "session:" + guid(),
            [
                "IDistributedCache key {v} held the cart; TTL 20 min",
            ],
        ),
        "blob_etag": (
            lambda: "0x8DB" + s(HEX.upper(), 12),
            [
                "If-Match failed, blob ETag is now {v}",
            ],
        ),
        "cosmos_rid": (
            lambda: s(B64, 14) + "==",
            [
                'doc metadata: "_rid": "{v}", "_self": "dbs/abc==/colls/abc=/docs/{v}/", "_ts": 1765000000',
            ],
        ),
        "cosmos_continuation": (
            lambda: (
                '{"token":"-RID:~'
                + s(B64, 16)
                + '#RT:1#TRC:100#ISV:2#IEO:65567#QCF:8","range":{"min":"","max":"FF"}}'
            ),
            [
                "paging with x-ms-continuation: {v}",
            ],
        ),
        "request_correlation_id": (
            guid,
            [
                "Graph 429 with request-id {v}, client-request-id {g2}",
                "x-ms-request-id: {v} -- attach to the Azure support case",
            ],
        ),
        "d365_record_ids": (
            guid,
            [
                'Dataverse account record accountid={v}, OData etag W/"{n5}"',
            ],
        ),
        "sharepoint_drive_item_id": (
            lambda: "01" + s("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 32),
            [
                "Graph drive item id for the HR template: {v}",
            ],
        ),
        "sharepoint_site_id": (
            lambda: "contoso.sharepoint.com," + guid() + "," + guid(),
            [
                "site id for /sites/hr is {v}",
            ],
        ),
        "ssis_dontsavesensitive": (
            lambda: "DontSaveSensitive",
            [
                "set ProtectionLevel={v} on all packages; passwords come from SSISDB environment variables now",
            ],
        ),
        "ssis_package_dtsid": (
            lambda: "{" + guid().upper() + "}",
            [
                'LoadCustomers.dtsx DTS:DTSID="{v}" DTS:VersionBuild="42"',
            ],
        ),
        "sql_agent_job_id": (
            guid,
            [
                "EXEC msdb.dbo.sp_start_job @job_id = '{v}';  -- Nightly ETL",
            ],
        ),
        "sql_password_hash_ref": (
            lambda: "PWDCOMPARE",
            [
                "to audit weak sql logins use {v}('', password_hash) over sys.sql_logins; no plaintext involved",
            ],
        ),
        "aspnet_identity_hash": (
            lambda: "AQAAAAIAAYagAAAAE" + s(B64, 67),
            [
                "AspNetUsers row for test admin: PasswordHash = {v} (PBKDF2, v3 format)",
            ],
        ),
        "bcrypt_hash": (
            lambda: "$2a$11$" + s(ALNUM + "./", 53),
            [
                "legacy users table stores BCrypt.Net hashes like {v}",
            ],
        ),
        "security_stamp": (
            lambda: s("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 32),
            [
                "SecurityStamp {v} changed after the reset, so old cookies got rejected",
            ],
        ),
        "sri_hash": (
            lambda: "sha384-" + s(B64, 64),
            [
                '<script src="https://cdn.jsdelivr.net/npm/bootstrap@5.3.3/dist/js/bootstrap.bundle.min.js" integrity="{v}" crossorigin="anonymous"></script>',
            ],
        ),
        "msi_sha256": (
            lambda: s(HEX.upper(), 64),
            [
                "Get-FileHash .\\ContosoAgent-2.4.1.msi -> SHA256 {v}",
            ],
        ),
        "git_commit_sha": (
            lambda: s(HEX, 40),
            [
                "hotfix merged to release/2026.12 at {v}",
            ],
        ),
        "stripe_publishable_key": (
            lambda: "pk_live_" + s(ALNUM, 99),
            [
                "checkout page gets the publishable key {v} (safe in JS)",
            ],
        ),
        "recaptcha_site_key": (
            lambda: "6L" + s(B64U, 38),
            [
                "reCAPTCHA site key (public, rendered in the page): {v}",
            ],
        ),
        "bitlocker_key_id": (
            guid,
            [
                "BitLocker key protector ID {v} for LT-4471; recovery password is in Entra, ask helpdesk",
            ],
        ),
        "get_credential_prompt": (
            lambda: "Get-Credential",
            [
                "$cred = {v} -Message 'svc-deploy password'; Invoke-Command -ComputerName web01 -Credential $cred -ScriptBlock {{ iisreset }}",
            ],
        ),
        "export_clixml_path": (
            lambda: "C:\\secure\\svc-deploy.cred.xml",
            [
                "cred saved with Export-Clixml to {v} (DPAPI, only readable by that user on that box)",
            ],
        ),
        "secret_management_module": (
            lambda: "Get-Secret -Name SqlSa -Vault CorpVault -AsPlainText",
            [
                "scripts should call {v} at run time instead of inlining",
            ],
        ),
        "password_property_code": (
            lambda: "public string Password { get; set; }",
            [
                "ConnectionOptions has {v} bound from config section 'Db'",
            ],
        ),
        "password_policy_talk": (
            lambda: "",
            [
                "service account passwords: 24 chars min, rotate yearly, stored only in Thycotic; no passwords in appsettings, ever",
            ],
        ),
        "registry_key_path": (
            lambda: "HKLM:\\SOFTWARE\\Contoso\\Agent",
            [
                "agent reads its endpoint from registry key {v} value ApiBase",
            ],
        ),
        "cancellation_token": (
            lambda: "CancellationToken cancellationToken",
            [
                "every handler takes {v} and passes it to EF",
            ],
        ),
        "primary_key_column": (
            lambda: "PK_Orders_OrderId",
            [
                "migration failed: duplicate key in {v}",
            ],
        ),
        "hresult_code": (
            lambda: "0x80070005",
            [
                "service start failed with {v} (access denied) until svc-orders got Log on as a service",
            ],
        ),
        "entra_secret_expired_revoked": (
            lambda: "",
            [
                "the client secret for hr-sync-daemon expired 2026-11-30 and was deleted from the app registration; new one is in kv-erp-prod as HrSyncClientSecret",
            ],
        ),
        "kv_secret_version_id": (
            lambda: "https://kv-erp-prod.vault.azure.net/secrets/SqlAdminPassword/" + s(HEX, 32),
            [
                "az keyvault secret set returned id {v}, enabled true, contentType text/plain",
            ],
        ),
        "app_service_publish_talk": (
            lambda: "az webapp deployment list-publishing-profiles",
            [
                "don't paste publish profiles; use {v} only when debugging, then reset-publishing-profile",
            ],
        ),
        "jwt_header_only": (
            lambda: (
                "eyJ0eXAiOiJKV1QiLCJhbGciOiJSUzI1NiIsImtpZCI6Ik1uQ19WWmNBVGZNNXBPWWlKSE1iYTlnb0VLWSJ9"
            ),
            [
                "decoded the failing token's header {v} -> kid doesn't match the jwks",
            ],
        ),
        "od_etag_version": (
            lambda: 'W/"' + str(r.randint(10**6, 10**8)) + '"',
            [
                "PATCH to D365 contacts with If-Match {v} returned 412",
            ],
        ),
    }

    more_s = {
        "cosmos_mongo_password": ["Mongo API connection for the feed service, password part: {v}"],
        "appconfig_secret": [
            '"AppConfig": "Endpoint=https://appcs-prod.azconfig.io;Id=rw-{n};Secret={v}"'
        ],
        "signalr_access_key": ["Azure SignalR primary key (sigr-notify): {v}"],
        "signtool_password": ["code signing cert for the MSI build, pfx pass: {v}"],
        "net_use_password": [
            "map the drop share: New-PSDrive -Name Z -PSProvider FileSystem -Root \\\\fs02\\drop -Credential CORP\\svc-build  # pw {v}"
        ],
        "cmdkey_password": ["stored jump host cred in Credential Manager: adm-jdoe / {v}"],
        "schtasks_password": [
            "Register-ScheduledTask -TaskName Cleanup -User CORP\\svc-etl -Password '{v}' -Action $a -Trigger $t"
        ],
        "machinekey_validation": ["validationKey for the webforms farm: {v}"],
        "machinekey_decryption": [
            '<machineKey decryptionKey="{v}" validationKey="AutoGenerate" />'
        ],
        "azure_devops_pat_new": [
            "PAT for the self-hosted agent registration: ./config.sh --auth pat --token {v}"
        ],
        "github_pat": ['<add key="ClearTextPassword" value="{v}" /> under the github source'],
        "sql_credential_secret": [
            "Agent proxy credential for the SSIS steps: identity CORP\\svc-ssis, secret {v}"
        ],
        "linked_server_password": ["linked server ORA_FIN maps to finread with password {v}"],
        "aes_encryption_key": [
            "column encryption key (AES-256, base64) used by ProtectedField: {v}"
        ],
        "sendgrid_api_key": ["SENDGRID_API_KEY={v}"],
        "ldap_bind_password": ["svc-ldap bind password for the intranet's DirectorySearcher: {v}"],
        "function_master_key": [
            "x-functions-key: {v}  (the _master one, works on admin/functions)"
        ],
        "acr_admin_password": ["ACR admin creds: username crcontoso, password {v}"],
        "octopus_api_key": ["Octopus API key for the deploy bot: {v}"],
        "aws_secret_key": ["aws_secret_access_key = {v}  (profile used by the S3 export job)"],
        "npgsql_password": ["pg-analytics admin: ingest / {v}"],
        "rabbitmq_uri_password": ["rabbit01 user masstransit, pw {v}"],
        "basic_auth_header": ["webhook from the ERP calls us with Authorization: Basic {v}"],
        "bearer_access_token": [
            'curl -H "Authorization: Bearer {v}" https://graph.microsoft.com/v1.0/me'
        ],
        "msal_refresh_token": ["refresh_token from the device-code flow: {v}"],
        "teams_webhook_url": ["Invoke-RestMethod -Method Post -Uri '{v}' -Body $card"],
        "bitlocker_recovery_password": ["recovery key for SRV-HV02 C: drive -> {v}"],
        "laps_password": ["local admin on SRV-APP03 (LAPS, valid until next rotation): {v}"],
        "unattend_domain_join_password": [
            "Add-Computer -DomainName corp.contoso.com -Credential CORP\\svc-join  # svc-join pw {v}"
        ],
        "stripe_secret_key": ["STRIPE__SECRETKEY={v}"],
        "elastic_api_key": ["Authorization: ApiKey {v}"],
        "identityserver_client_secret": ["partner-portal client secret (IdentityServer): {v}"],
        "winrm_password": ["winrm on web04: user CORP\\adm-build, password {v}"],
    }
    for _k, _t in more_s.items():
        S[_k][1].append(_t[0])

    extras = lambda: {  # noqa: E731
        "g1": guid(),
        "g2": guid(),
        "n": s(ALNUM, 6),
        "h32": s(HEX, 32),
        "iv": b64(16),
        "ak": s(UPPER_NUM, 16),
        "pk": s(ALNUM, 99),
        "k": s(B64U, 27),
        "sq": str(r.randint(10**5, 10**7)),
        "n5": str(r.randint(10**6, 10**8)),
    }
    wrap = [
        "{t}",
        "note: {t}",
        "{t}\n(saved for later)",
        "From today's session:\n{t}",
        "TODO move to vault -> {t}",
        "- {t}",
        "remember for the deploy on Friday:\n{t}",
        "User pasted this while debugging the 401s:\n{t}",
        "[ops notebook] {t}",
        "{t}\nworks as of this morning.",
        "handover from Priya before leave:\n  {t}",
        "Agent memory, project Contoso.Erp: {t}",
    ]
    bwrap = [
        "{t}",
        "note: {t}",
        "- {t}",
        "context for next time:\n{t}",
        "from the runbook: {t}",
        "Agent memory, project Contoso.Erp: {t}",
        "{t}\n(checked with security, fine to keep here)",
        "[wiki] {t}",
        "decision log 2026-12: {t}",
        "{t} -- see ticket OPS-4411",
    ]

    rows: list[dict] = []
    for label, table, wr in (("secret", S, wrap), ("benign", B, bwrap)):
        for kind, (gen, templates) in table.items():
            picks = r.sample(wr, 3)
            for i in range(max(3, len(templates))):
                tpl = templates[i % len(templates)]
                v = gen()
                text = tpl.format(v=v, **extras())
                text = picks[i % 3].format(t=text) if i < 3 else r.choice(wr).format(t=text)
                assert v in text, (kind, tpl)
                rows.append({"label": label, "kind": kind, "text": text, "value": v})
    assert len({x["text"] for x in rows}) == len(rows)
    return rows


def main() -> None:
    rows = corpus()
    out = "\n".join(json.dumps(x) for x in rows) + "\n"
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w", encoding="utf-8") as f:
            f.write(out)
    else:
        sys.stdout.write(out)


if __name__ == "__main__":
    main()
