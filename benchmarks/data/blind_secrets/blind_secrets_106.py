# ruff: noqa: E501, SIM115
"""Blind secret-detector corpus 106: customer-service call centre and BPO.

Brief: memory notes kept by the telephony, CRM, WFM and platform teams of a
multi-site contact centre / BPO (Manila, Cebu, Bogota, Sao Paulo, Monterrey)
and their AI coding agents: dialer and PBX configs, SIP trunks, agent desktop
and client-portal integrations, call-recording exports, payment IVR, messaging
and the generic dev stack. Prose, handover lines, chat, commands, .env, YAML,
JSON, URLs, tables and log lines in English, Spanish, Brazilian Portuguese and
Tagalog/Taglish. Secrets are live credentials; benign rows are look-alikes a
careful engineer would keep (ids, SIDs, hashes, public keys, placeholders,
masked or revoked values, references, policy text).

Written blind on 2026-12-07: the author did not read the detector, its tests or any earlier corpus.

Run: python blind_secrets_106.py [out.jsonl]

Kinds, secret: twilio_auth_token, twilio_api_key_secret, telnyx_api_key,
vonage_api_secret, plivo_auth_token, genesys_cloud_client_secret,
nice_cxone_access_key_secret, talkdesk_client_secret, five9_admin_password,
vicidial_api_password, asterisk_ami_secret, sip_trunk_password,
sip_extension_password, pbx_admin_password, desk_phone_admin_password,
voicemail_pin, conference_host_pin, door_alarm_code, wifi_psk,
salesforce_password_token, salesforce_consumer_secret, zendesk_api_token,
freshdesk_api_key, hubspot_private_app_token, okta_api_token,
wfm_admin_password, domain_service_account_password, client_portal_password,
sftp_recording_password, recording_encryption_key, pgp_passphrase,
aws_secret_access_key, azure_storage_connection_string, google_api_key,
openai_api_key, deepgram_api_key, slack_bot_token, slack_webhook_url,
teams_webhook_url, github_token, gitlab_token, stripe_secret_key,
stripe_webhook_secret, sendgrid_api_key, whatsapp_cloud_token,
authorize_net_transaction_key, postgres_url_password,
mssql_connection_password, redis_url_password, ssh_private_key, totp_seed,
recovery_codes, jwt_session_token, datadog_api_key.

Kinds, benign: twilio_account_sid, twilio_call_sid, twilio_recording_sid,
phone_number_e164, toll_free_number, agent_extension, agent_employee_id,
queue_id_uuid, oauth_client_id, salesforce_record_id, salesforce_org_id,
zendesk_ticket_ref, incident_ticket_ref, jira_key, dialer_campaign_id,
connect_contact_id, amazon_connect_arn, aws_account_id, azure_tenant_id,
stripe_publishable_key, recaptcha_site_key, payment_merchant_id,
git_commit_sha, sha256_recording_digest, md5_checksum,
container_image_digest, npm_integrity_hash, bcrypt_hash, ssh_public_key,
certificate_pem, tls_fingerprint, pgp_key_fingerprint, mac_address,
device_serial_number, sbc_ip_address, sip_uri, placeholder_value,
masked_secret, env_var_reference, vault_path, k8s_secret_ref,
password_policy_text, revoked_key, documented_example_key,
test_card_number, masked_card_pan, build_version, feature_access_code,
ivr_dtmf_path, conference_meeting_id, slack_channel_id, wfm_schedule_id,
invoice_number, recording_filename, correlation_id, ga_measurement_id.
"""

import base64
import json
import random
import string
import sys

SEED = 187790


def corpus() -> list[dict]:
    r = random.Random(SEED)
    rows: list[dict] = []

    def add(label, kind, value, tpl, **kw):
        text = tpl.replace("{v}", value)
        for k, x in kw.items():
            text = text.replace("{" + k + "}", x)
        assert value in text, (kind, tpl)
        rows.append({"label": label, "kind": kind, "text": text, "value": value})

    def S(kind, value, tpl, **kw):
        add("secret", kind, value, tpl, **kw)

    def B(kind, value, tpl, **kw):
        add("benign", kind, value, tpl, **kw)

    HEX = "0123456789abcdef"
    AN = string.ascii_letters + string.digits
    UPD = string.ascii_uppercase + string.digits
    URLSAFE = AN + "-_"
    B64 = AN + "+/"
    B32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"

    def ch(alpha, n):
        return "".join(r.choice(alpha) for _ in range(n))

    def hx(n):
        return ch(HEX, n)

    def an(n):
        return ch(AN, n)

    def dg(n):
        return str(r.randint(1, 9)) + ch(string.digits, n - 1)

    def uid():
        return f"{hx(8)}-{hx(4)}-4{hx(3)}-{r.choice('89ab')}{hx(3)}-{hx(12)}"

    def b64bytes(n):
        return base64.b64encode(bytes(r.getrandbits(8) for _ in range(n))).decode()

    def b64url(obj):
        return (
            base64.urlsafe_b64encode(json.dumps(obj, separators=(",", ":")).encode())
            .decode()
            .rstrip("=")
        )

    def pem_lines(body):
        return "\n".join(body[i : i + 64] for i in range(0, len(body), 64))

    words = [
        "Manila",
        "Cebu",
        "Bogota",
        "Soporte",
        "Verano",
        "Callcentre",
        "Tigre",
        "Mabuhay",
        "Saudade",
        "Aguila",
        "Sampaguita",
        "Flamengo",
        "Orquidea",
        "Dialer",
        "Headset",
        "Campana",
        "Bayani",
        "Corcovado",
        "Tacos",
        "Sinigang",
        "Monterrey",
        "Palmeiras",
        "Adobo",
        "Quetzal",
        "Jeepney",
    ]
    syms = "!@#$%*.?_"

    def pw():
        w = r.choice(words)
        style = r.randint(0, 5)
        if style == 0:
            return f"{w}{r.randint(2019, 2026)}{r.choice(syms)}"
        if style == 1:
            return f"{w}{r.choice(syms)}{r.randint(10, 99)}{r.choice(words).lower()}"
        if style == 2:
            leet = w.replace("a", "@").replace("o", "0").replace("e", "3").replace("i", "1")
            return f"{leet}{r.randint(1, 999)}{r.choice(syms)}"
        if style == 3:
            return f"{r.choice(syms)}{w.upper()}{r.randint(100, 9999)}"
        if style == 4:
            return f"{w}.{r.choice(words)}{r.randint(1, 99)}"
        return f"{w[:4]}{r.choice(syms)}{an(6)}{r.randint(0, 9)}"

    def pin(n):
        while True:
            p = ch(string.digits, n)
            if len(set(p)) > 2 and p not in "0123456789" and p not in "9876543210":
                return p

    def passphrase():
        pool = [
            "balut",
            "jeepney",
            "tinta",
            "mango",
            "rio",
            "neblina",
            "tortuga",
            "carinderia",
            "lancha",
            "saguaro",
            "papel",
            "ubeh",
            "pandesal",
            "ladeira",
            "cobalto",
            "farol",
            "tambor",
            "lluvia",
        ]
        return "-".join(r.sample(pool, 4)) + str(r.randint(1, 99))

    # ------------------------------------------------------------------ secrets

    # Twilio auth token
    S(
        "twilio_auth_token",
        hx(32),
        "Flex prod (client Northwind Telco): Account SID {sid}, Auth Token {v}. Don't paste it in the Studio flow, use the env var.",
        sid="AC" + hx(32),
    )
    S(
        "twilio_auth_token",
        hx(32),
        "TWILIO_AUTH_TOKEN={v}",
    )
    S(
        "twilio_auth_token",
        hx(32),
        "Handover Cebu night shift: twilio token for the SMS reminders rotated, bago na: {v} (luma na yung nasa wiki).",
    )
    S(
        "twilio_auth_token",
        hx(32),
        "curl -X POST https://api.twilio.com/2010-04-01/Accounts/{sid}/Messages.json -u {sid}:{v} --data-urlencode 'To=+639171234567' --data-urlencode 'Body=Test'",
        sid="AC" + hx(32),
    )
    # Twilio API key secret
    S(
        "twilio_api_key_secret",
        an(32),
        "twilio:\n  api_key_sid: {sid}\n  api_key_secret: {v}\n  workspace: WS{ws}",
        sid="SK" + hx(32),
        ws=hx(32),
    )
    S(
        "twilio_api_key_secret",
        an(32),
        "Created a standard API key for the recording downloader ({sid}); the secret is shown only once so here it is: {v}",
        sid="SK" + hx(32),
    )
    S(
        "twilio_api_key_secret",
        an(32),
        "Chave secreta da API key Twilio para o Flex do cliente Banco Aurora: {v} (SID {sid}).",
        sid="SK" + hx(32),
    )
    # Telnyx
    S("telnyx_api_key", "KEY" + ch(UPD, 32) + "_" + an(22), "TELNYX_API_KEY={v}")
    S(
        "telnyx_api_key",
        "KEY" + ch(UPD, 32) + "_" + an(22),
        "Outbound trunk for the collections campaign moved to Telnyx. Auth header: Authorization: Bearer {v}",
    )
    S(
        "telnyx_api_key",
        "KEY" + ch(UPD, 32) + "_" + an(22),
        "agent-memory: telnyx v2 key for number porting scripts -> {v}; owner is Jomar from telecom.",
    )
    # Vonage
    S("vonage_api_secret", an(16), "Vonage SMS fallback: api_key={key} api_secret={v}", key=hx(8))
    S("vonage_api_secret", an(16), "VONAGE_API_KEY={key}\nVONAGE_API_SECRET={v}", key=hx(8))
    S(
        "vonage_api_secret",
        an(16),
        "Secreto de Vonage para los OTP del portal de clientes: {v} (la key es {key}, esa no es secreta).",
        key=hx(8),
    )
    # Plivo
    S(
        "plivo_auth_token",
        an(40),
        "plivo auth_id {aid} / auth_token {v} - used by the legacy IVR in Monterrey",
        aid="MA" + ch(string.ascii_uppercase, 18),
    )
    S("plivo_auth_token", an(40), 'PLIVO_AUTH_TOKEN="{v}"')
    S(
        "plivo_auth_token",
        an(40),
        "client = plivo.RestClient(auth_id='{aid}', auth_token='{v}')",
        aid="MA" + ch(string.ascii_uppercase, 18),
    )
    # Genesys Cloud client secret
    S(
        "genesys_cloud_client_secret",
        ch(URLSAFE, 43),
        "Genesys Cloud OAuth (client credentials) for the WFM adherence sync: client id {cid}, secret {v}, region mypurecloud.com.au",
        cid=uid(),
    )
    S(
        "genesys_cloud_client_secret",
        ch(URLSAFE, 43),
        "GENESYS_CLIENT_ID={cid}\nGENESYS_CLIENT_SECRET={v}\nGENESYS_REGION=usw2.pure.cloud",
        cid=uid(),
    )
    S(
        "genesys_cloud_client_secret",
        ch(URLSAFE, 43),
        '{"genesys": {"environment": "mypurecloud.ie", "clientId": "{cid}", "clientSecret": "{v}"}}',
        cid=uid(),
    )
    S(
        "genesys_cloud_client_secret",
        ch(URLSAFE, 43),
        "Nueva credencial OAuth de Genesys para el tablero de supervisores en Bogota. Secreto: {v}",
    )
    # NICE CXone
    S(
        "nice_cxone_access_key_secret",
        ch(URLSAFE, 54),
        "CXone access key for the reporting API: access key id {kid}, secret {v}. Tied to the svc_reporting user.",
        kid=ch(UPD, 20),
    )
    S(
        "nice_cxone_access_key_secret",
        ch(URLSAFE, 54),
        'cxone:\n  accessKeyId: {kid}\n  accessKeySecret: "{v}"\n  businessUnit: 4601234',
        kid=ch(UPD, 20),
    )
    S(
        "nice_cxone_access_key_secret",
        ch(URLSAFE, 54),
        "[chat] Rhea: pakisave na lang sa vault, eto yung CXone secret para sa Studio scripts: {v}",
    )
    # Talkdesk
    S(
        "talkdesk_client_secret",
        an(48),
        "Talkdesk OAuth client (account acme-insure): client_id {cid} client_secret {v}",
        cid=hx(32),
    )
    S("talkdesk_client_secret", an(48), "TALKDESK_CLIENT_SECRET={v}")
    S(
        "talkdesk_client_secret",
        an(48),
        "O segredo do client do Talkdesk que o integrador mandou por e-mail: {v} - trocar assim que a integração subir.",
    )
    # Five9 admin
    S(
        "five9_admin_password",
        pw(),
        "Five9 domain admin for the Acme Insurance outbound campaign: user five9.admin@acme-bpo.com / pass {v}",
    )
    S(
        "five9_admin_password",
        pw(),
        "Handover: Five9 supervisor login for weekend team is sup.weekend, password {v}. Change it Monday.",
    )
    S("five9_admin_password", pw(), "Contraseña del admin de Five9 (dominio ClaroMX-Cobranza): {v}")
    S(
        "five9_admin_password",
        pw(),
        "five9_ws:\n  username: api.integration@acme-bpo.com\n  password: '{v}'\n  wsdl: https://api.five9.com/wsadmin/v12/AdminWebService?wsdl",
    )
    # Vicidial API
    S(
        "vicidial_api_password",
        pw(),
        "curl 'https://dialer.acme-bpo.local/agc/api.php?source=crm&user=apiuser&pass={v}&agent_user=2041&function=external_dial&value=5215512345678'",
    )
    S(
        "vicidial_api_password",
        pw(),
        "VICIdial non-agent API: user 6666, pass {v} (level 9, don't give this to team leads)",
    )
    S(
        "vicidial_api_password",
        pw(),
        "Contraseña del usuario API de Vicidial para el lead loader: {v}",
    )
    # Asterisk AMI
    S(
        "asterisk_ami_secret",
        an(20),
        "[wallboard]\nsecret = {v}\ndeny=0.0.0.0/0.0.0.0\npermit=10.20.0.0/255.255.0.0\nread = system,call,agent\nwrite = originate",
    )
    S(
        "asterisk_ami_secret",
        an(18),
        "The wallboard connects to AMI on 10.20.1.5:5038 as 'queuestats' with secret {v}",
    )
    S("asterisk_ami_secret", pw(), "AMI_USER=crmpop\nAMI_SECRET={v}")
    # SIP trunk password
    S(
        "sip_trunk_password",
        an(16),
        "[trunk-globe-manila]\ntype=registration\nouter_auth=trunk-auth\n\n[trunk-auth]\ntype=auth\nauth_type=userpass\nusername=63288801234\npassword={v}",
    )
    S(
        "sip_trunk_password",
        an(14),
        "SIP trunk do cliente Vivo: registrar sip.operadora.com.br, usuário 551130031234, senha {v}",
    )
    S(
        "sip_trunk_password",
        pw(),
        "Carrier gave us the new digest password for the Bogota trunk: {v} - AudioCodes SBC updated, need to update backup SBC too",
    )
    S(
        "sip_trunk_password",
        an(12),
        "register => 5215550001234:{v}@sip.carrier-mx.net/5215550001234",
    )
    # SIP extension password
    S(
        "sip_extension_password",
        an(12),
        "Ext 2041 (Maricel, Tier 2): SIP user 2041, secret {v}, server pbx.cebu.acme-bpo.local",
    )
    S(
        "sip_extension_password",
        hx(32)[:16],
        '[2107]\ntype=friend\nhost=dynamic\nsecret={v}\ncontext=agents-mty\ncallerid="Agente 2107" <2107>',
    )
    S(
        "sip_extension_password",
        an(10),
        "Zoiper sa bahay (WFH): ext 3312, password {v}, domain voip.acme-bpo.ph",
    )
    # PBX admin
    S(
        "pbx_admin_password",
        pw(),
        "FreePBX web admin https://10.20.1.5/admin - user admin, pass {v}",
    )
    S("pbx_admin_password", pw(), "Avaya CM SAT login for the Sao Paulo site: craft / {v}")
    S(
        "pbx_admin_password",
        pw(),
        "CUCM administrator (ccmadmin) password reset to {v} after the audit, stored nowhere else yet",
    )
    S("pbx_admin_password", pw(), "Senha do painel 3CX da operação de Recife: {v}")
    # Desk phone admin
    S(
        "desk_phone_admin_password",
        pin(6),
        "Yealink T46U web UI admin password on the 4th floor phones: {v} (set via provisioning template)",
    )
    S(
        "desk_phone_admin_password",
        pw(),
        "<device.set>1</device.set>\n<device.prov.serverName>https://prov.acme-bpo.local</device.prov.serverName>\n<device.auth.localAdminPassword>{v}</device.auth.localAdminPassword>",
    )
    S("desk_phone_admin_password", pin(5), "Polycom VVX admin pw sa training room: {v}")
    # Voicemail PIN
    S("voicemail_pin", pin(4), "Voicemail for the escalations line (ext 7000): dial *97, PIN {v}")
    S("voicemail_pin", pin(6), "PIN del buzón de voz de la gerencia de cuentas: {v}")
    S("voicemail_pin", pin(4), "[default]\n7000 => {v},Escalations Desk,escalations@acme-bpo.com")
    S("voicemail_pin", pin(4), "Caixa postal do plantão (ramal 8800), senha {v}")
    # Conference host PIN / supervisor monitor PIN
    S(
        "conference_host_pin",
        pin(6),
        "Client QBR bridge: +1 646 555 0142, meeting ID 884 213 0091, host PIN {v}",
    )
    S(
        "conference_host_pin",
        pin(4),
        "Supervisor silent-monitor access: dial *223 then ext, supervisor PIN {v}",
    )
    S(
        "conference_host_pin",
        pin(6),
        "PIN de anfitrión para el bridge de crisis: {v}# (no compartir con el cliente)",
    )
    S("conference_host_pin", pin(5), "Barge-in code ng mga TL sa Genesys legacy PBX: {v}")
    # Door / alarm code
    S("door_alarm_code", pin(4), "Server room on 3F (Ayala site): door keypad code {v}#")
    S("door_alarm_code", pin(6), "Alarm disarm code for the Monterrey building after hours: {v}")
    S("door_alarm_code", pin(4), "Código da porta da sala de gravações (PCI zone): {v}")
    S("door_alarm_code", pin(5), "Bagong code sa pinto ng production floor simula Lunes: {v}*")
    # Wi-Fi PSK
    S("wifi_psk", pw(), "Floor Wi-Fi ACME-AGENTS WPA2 key: {v}")
    S("wifi_psk", passphrase(), 'network={\n    ssid="ACME-TRAINING"\n    psk="{v}"\n}')
    S("wifi_psk", pw(), "Senha do wifi dos supervisores (SSID SUP-5G): {v}")
    # Salesforce password + token
    st = an(24)
    sp = pw()
    S(
        "salesforce_password_token",
        sp + st,
        "SF integration user integ@acme-bpo.com: password+token concatenated for the SOAP login = {v}",
    )
    S(
        "salesforce_password_token",
        an(24),
        "Salesforce security token for the Service Cloud sync user (reset today, came by email): {v}",
    )
    S(
        "salesforce_password_token",
        pw(),
        "SF_USERNAME=integ.cases@northwind.com\nSF_PASSWORD={v}\nSF_LOGIN_URL=https://login.salesforce.com",
    )
    # Salesforce consumer secret
    S(
        "salesforce_consumer_secret",
        ch("0123456789ABCDEF", 64),
        "Connected app 'CTI Adapter': consumer key {ck}, consumer secret {v}",
        ck="3MVG9" + ch(URLSAFE.replace("-", "") + ".", 80),
    )
    S(
        "salesforce_consumer_secret",
        ch("0123456789ABCDEF", 64),
        "salesforce:\n  client_id: ${SF_CLIENT_ID}\n  client_secret: {v}",
    )
    S(
        "salesforce_consumer_secret",
        ch("0123456789ABCDEF", 64),
        "Secreto del connected app de Salesforce para el softphone: {v}",
    )
    # Zendesk
    S(
        "zendesk_api_token",
        an(40),
        "Zendesk API token for the tier-1 macros bot (acmesupport.zendesk.com, user bot@acme-bpo.com/token): {v}",
    )
    S(
        "zendesk_api_token",
        an(40),
        "curl https://acmesupport.zendesk.com/api/v2/tickets.json -u ops@acme-bpo.com/token:{v}",
    )
    S("zendesk_api_token", an(40), "ZENDESK_TOKEN={v}")
    S(
        "zendesk_api_token",
        an(40),
        "Token do Zendesk do cliente Loja Sol pra importar tickets antigos: {v}",
    )
    # Freshdesk
    S(
        "freshdesk_api_key",
        an(20),
        "Freshdesk key for the QA sampling script: {v} (use as basic-auth user, password X)",
    )
    S(
        "freshdesk_api_key",
        an(20),
        "curl -u {v}:X -H 'Content-Type: application/json' https://acmebpo.freshdesk.com/api/v2/tickets?per_page=100",
    )
    S("freshdesk_api_key", an(20), "API key ng Freshdesk ni client (Globe retail): {v}")
    # HubSpot
    S(
        "hubspot_private_app_token",
        "pat-na1-" + uid(),
        "HubSpot private app 'lead-router' token: {v}",
    )
    S("hubspot_private_app_token", "pat-eu1-" + uid(), "HUBSPOT_ACCESS_TOKEN={v}")
    S(
        "hubspot_private_app_token",
        "pat-na1-" + uid(),
        'headers = {"Authorization": "Bearer {v}"}  # hubspot contacts sync for outbound',
    )
    # Okta
    S(
        "okta_api_token",
        "00" + ch(URLSAFE, 40),
        "Okta API token (SSWS) for agent onboarding automation: {v}",
    )
    S(
        "okta_api_token",
        "00" + ch(URLSAFE, 40),
        "curl -H 'Authorization: SSWS {v}' https://acme-bpo.okta.com/api/v1/users?filter=status%20eq%20%22ACTIVE%22",
    )
    S(
        "okta_api_token",
        "00" + ch(URLSAFE, 40),
        "OKTA_ORG_URL=https://acme-bpo.okta.com\nOKTA_API_TOKEN={v}",
    )
    # WFM admin password
    S("wfm_admin_password", pw(), "NICE IEX admin (wfm-admin) password: {v}")
    S("wfm_admin_password", pw(), "Calabrio ONE super admin for the Manila tenant: ops.wfm / {v}")
    S(
        "wfm_admin_password",
        pw(),
        "Verint WFO: la clave del usuario de planificación quedó como {v}",
    )
    S("wfm_admin_password", pw(), "Senha do admin do escala (Teleopti) depois do reset: {v}")
    # Domain service account
    S(
        "domain_service_account_password",
        pw(),
        "ACMEBPO\\svc_recorder password (runs the Verint recorder service on REC01/REC02): {v}",
    )
    S(
        "domain_service_account_password",
        pw(),
        "New-LocalUser ... ; $pass = ConvertTo-SecureString '{v}' -AsPlainText -Force  # svc_wallboard",
    )
    S("domain_service_account_password", pw(), "Pw ng svc_ivrdb sa AD, na-reset kagabi: {v}")
    S(
        "domain_service_account_password",
        pw(),
        'ldap:\n  bind_dn: CN=svc_ldap_crm,OU=Service,DC=acme-bpo,DC=local\n  bind_password: "{v}"',
    )
    # Client portal shared login
    S(
        "client_portal_password",
        pw(),
        "Northwind client portal (reporting.northwind.com) shared login for our analysts: acmebpo_reporting / {v}",
    )
    S(
        "client_portal_password",
        pw(),
        "Portal del cliente Banco Andino para bajar las bases de cobranza: usuario bpo.acme, contraseña {v}",
    )
    S(
        "client_portal_password",
        pw(),
        "Login compartilhado do portal da Loja Sol (pedidos/trocas): acme.atendimento / {v}",
    )
    S(
        "client_portal_password",
        pw(),
        "Shared login sa portal ng telco client para sa rebates: acme_tl01 pw {v}",
    )
    # SFTP recordings
    S(
        "sftp_recording_password",
        pw(),
        "Daily recording export goes to sftp://recordings@sftp.northwind.com:2222/inbound/ - password {v}",
    )
    S(
        "sftp_recording_password",
        pw(),
        "sshpass -p '{v}' sftp -P 22 acme_rec@files.bancoandino.co <<< 'put /exports/*.tar.gpg'",
    )
    S(
        "sftp_recording_password",
        an(16),
        "SFTP de entrega de gravações pro cliente: host sftp.lojasol.com.br, user acme, senha {v}",
    )
    # Recording encryption key
    S(
        "recording_encryption_key",
        hx(64),
        "Recording vault AES-256 master key (REC-KEY-2026Q4): {v}",
    )
    S("recording_encryption_key", hx(64), "RECORDING_ENCRYPTION_KEY={v}")
    S(
        "recording_encryption_key",
        b64bytes(32),
        "openssl enc -aes-256-cbc -pbkdf2 -in call.wav -out call.wav.enc -pass pass:{v}",
    )
    # PGP passphrase
    S(
        "pgp_passphrase",
        passphrase(),
        "Passphrase for the recordings export signing key (0xA1F3...): {v}",
    )
    S(
        "pgp_passphrase",
        passphrase(),
        "gpg --batch --pinentry-mode loopback --passphrase '{v}' -d bases_cobranza_20261206.csv.gpg",
    )
    S("pgp_passphrase", passphrase(), "Frase secreta da chave PGP do cliente Banco Aurora: {v}")
    # AWS secret access key
    S(
        "aws_secret_access_key",
        ch(B64, 40),
        "Amazon Connect export bucket user: AKIA{kid} / {v}",
        kid=ch(B32[:26] + "234567", 16),
    )
    S(
        "aws_secret_access_key",
        ch(B64, 40),
        "[connect-prod]\naws_access_key_id = AKIA{kid}\naws_secret_access_key = {v}\nregion = ap-southeast-1",
        kid=ch(string.ascii_uppercase + "234567", 16),
    )
    S("aws_secret_access_key", ch(B64, 40), "AWS_SECRET_ACCESS_KEY={v}")
    S("aws_secret_access_key", ch(B64, 40), "La secret key de AWS del usuario de Contact Lens: {v}")
    # Azure storage
    S(
        "azure_storage_connection_string",
        "DefaultEndpointsProtocol=https;AccountName=acmerecordings;AccountKey="
        + b64bytes(64)
        + ";EndpointSuffix=core.windows.net",
        'AZURE_STORAGE_CONNECTION_STRING="{v}"',
    )
    S(
        "azure_storage_connection_string",
        "DefaultEndpointsProtocol=https;AccountName=qaevals01;AccountKey="
        + b64bytes(64)
        + ";EndpointSuffix=core.windows.net",
        "QA evaluations blob storage: {v}",
    )
    S(
        "azure_storage_connection_string",
        "DefaultEndpointsProtocol=https;AccountName=wfmforecast;AccountKey=" + b64bytes(64),
        '"ConnectionStrings": {"ForecastBlob": "{v}"}',
    )
    # Google API key
    S(
        "google_api_key",
        "AIza" + ch(URLSAFE, 35),
        "Speech-to-Text API key for the Tagalog transcription pilot: {v}",
    )
    S("google_api_key", "AIza" + ch(URLSAFE, 35), "GOOGLE_TRANSLATE_API_KEY={v}")
    S(
        "google_api_key",
        "AIza" + ch(URLSAFE, 35),
        "curl 'https://translation.googleapis.com/language/translate/v2?key={v}' -d 'q=Olá&target=en'",
    )
    # OpenAI
    S(
        "openai_api_key",
        "sk-proj-" + ch(URLSAFE, 74) + "T3BlbkFJ" + ch(URLSAFE, 74),
        "OPENAI_API_KEY={v}",
    )
    S(
        "openai_api_key",
        "sk-" + an(20) + "T3BlbkFJ" + an(20),
        "Post-call summary lambda still uses the old OpenAI key {v}; migrate to the project key",
    )
    S(
        "openai_api_key",
        "sk-proj-" + ch(URLSAFE, 74) + "T3BlbkFJ" + ch(URLSAFE, 74),
        "Chave da OpenAI pro resumo automático de atendimentos: {v}",
    )
    # Deepgram
    S(
        "deepgram_api_key",
        hx(40),
        "Deepgram key for real-time agent assist (project cc-assist): {v}",
    )
    S(
        "deepgram_api_key",
        hx(40),
        "curl -X POST 'https://api.deepgram.com/v1/listen?model=nova-2&language=es' -H 'Authorization: Token {v}' --data-binary @llamada.wav",
    )
    S("deepgram_api_key", hx(40), "DEEPGRAM_API_KEY={v}")
    # Slack bot token
    S(
        "slack_bot_token",
        f"xoxb-{dg(12)}-{dg(13)}-{an(24)}",
        "Bot token for #wfm-alerts notifier: {v}",
    )
    S("slack_bot_token", f"xoxb-{dg(11)}-{dg(13)}-{an(24)}", "SLACK_BOT_TOKEN={v}")
    S(
        "slack_bot_token",
        f"xoxb-{dg(12)}-{dg(13)}-{an(24)}",
        "slack:\n  token: {v}\n  channel: C04QUEUEOPS",
    )
    # Slack webhook
    S(
        "slack_webhook_url",
        f"https://hooks.slack.com/services/T{ch(UPD, 10)}/B{ch(UPD, 10)}/{an(24)}",
        "Queue SLA breach alerts post to {v}",
    )
    S(
        "slack_webhook_url",
        f"https://hooks.slack.com/services/T{ch(UPD, 9)}/B{ch(UPD, 11)}/{an(24)}",
        "curl -X POST -H 'Content-type: application/json' --data '{\"text\":\"Abandon rate > 8% en cola Cobranza\"}' {v}",
    )
    S(
        "slack_webhook_url",
        f"https://hooks.slack.com/services/T{ch(UPD, 10)}/B{ch(UPD, 10)}/{an(24)}",
        "SLACK_WEBHOOK_INTRADAY={v}",
    )
    # Teams webhook
    S(
        "teams_webhook_url",
        f"https://acmebpo.webhook.office.com/webhookb2/{uid()}@{uid()}/IncomingWebhook/{hx(32)}/{uid()}",
        "Teams channel 'Floor Managers - Cebu' incoming webhook: {v}",
    )
    S(
        "teams_webhook_url",
        f"https://acmebpo.webhook.office.com/webhookb2/{uid()}@{uid()}/IncomingWebhook/{hx(32)}/{uid()}",
        "TEAMS_WEBHOOK_URL={v}",
    )
    S(
        "teams_webhook_url",
        f"https://acmebpo.webhook.office.com/webhookb2/{uid()}@{uid()}/IncomingWebhook/{hx(32)}/{uid()}",
        "Webhook do canal de incidentes de telefonia no Teams: {v}",
    )
    # GitHub
    S(
        "github_token",
        "ghp_" + an(36),
        "PAT for the agent-desktop repo CI (repo scope), expires in 90 days: {v}",
    )
    S("github_token", "github_pat_" + an(22) + "_" + an(59), "GH_TOKEN={v}")
    S(
        "github_token",
        "ghp_" + an(36),
        "git clone https://ops-bot:{v}@github.com/acme-bpo/ivr-flows.git",
    )
    # GitLab
    S(
        "gitlab_token",
        "glpat-" + ch(URLSAFE, 20),
        "GitLab deploy token for the wallboard project: {v}",
    )
    S("gitlab_token", "glpat-" + ch(URLSAFE, 20), 'variables:\n  GITLAB_API_TOKEN: "{v}"')
    S("gitlab_token", "glpat-" + ch(URLSAFE, 20), "Token do GitLab pra pipeline do softphone: {v}")
    # Stripe secret
    S(
        "stripe_secret_key",
        "sk_live_51" + an(97),
        "Payment IVR (card-not-present, client portal billing) Stripe live key: {v}",
    )
    S("stripe_secret_key", "rk_live_51" + an(97), "STRIPE_RESTRICTED_KEY={v}")
    S(
        "stripe_secret_key",
        "sk_live_" + an(24),
        'stripe.api_key = "{v}"  # old account, still used by the refunds desk',
    )
    # Stripe webhook secret
    S("stripe_webhook_secret", "whsec_" + an(32), "STRIPE_WEBHOOK_SECRET={v}")
    S(
        "stripe_webhook_secret",
        "whsec_" + an(32),
        "Signing secret for the payment-confirmation webhook endpoint (/hooks/stripe): {v}",
    )
    S(
        "stripe_webhook_secret",
        "whsec_" + an(32),
        "Secreto de firma del webhook de Stripe para el IVR de pagos: {v}",
    )
    # SendGrid
    S("sendgrid_api_key", "SG." + ch(URLSAFE, 22) + "." + ch(URLSAFE, 43), "SENDGRID_API_KEY={v}")
    S(
        "sendgrid_api_key",
        "SG." + ch(URLSAFE, 22) + "." + ch(URLSAFE, 43),
        "CSAT survey emails go out via SendGrid, key {v}",
    )
    S(
        "sendgrid_api_key",
        "SG." + ch(URLSAFE, 22) + "." + ch(URLSAFE, 43),
        "smtp.sendgrid.net:587 user apikey pass {v}",
    )
    # WhatsApp Cloud
    S(
        "whatsapp_cloud_token",
        "EAA" + r.choice("BGJI") + an(190),
        "WhatsApp Cloud API permanent token (system user 'cx-bot'): {v}",
    )
    S(
        "whatsapp_cloud_token",
        "EAA" + r.choice("BGJI") + an(180),
        "WHATSAPP_TOKEN={v}\nWHATSAPP_PHONE_NUMBER_ID={pid}",
        pid=dg(15),
    )
    S(
        "whatsapp_cloud_token",
        "EAA" + r.choice("BGJI") + an(170),
        "Token del WhatsApp Business del cliente Banco Andino: {v}",
    )
    # Authorize.net
    S(
        "authorize_net_transaction_key",
        an(16),
        "Authorize.Net for the phone payments desk: API login ID {lid}, transaction key {v}",
        lid=an(10),
    )
    S("authorize_net_transaction_key", an(16), "AUTHNET_TRANSACTION_KEY={v}")
    S(
        "authorize_net_transaction_key",
        an(16),
        "<merchantAuthentication><name>{lid}</name><transactionKey>{v}</transactionKey></merchantAuthentication>",
        lid=an(9),
    )
    # Postgres URL
    S(
        "postgres_url_password",
        f"postgresql://cdr_reader:{pw()}@10.20.3.14:5432/cdr",
        "DATABASE_URL={v}",
    )
    S(
        "postgres_url_password",
        f"postgres://wfm_app:{an(20)}@wfm-db.internal.acme-bpo.com:5432/forecasting?sslmode=require",
        "Forecasting service DB: {v}",
    )
    S(
        "postgres_url_password",
        f"postgresql://qa:{pw()}@qa-evals.cluster-c9x.ap-southeast-1.rds.amazonaws.com/qa",
        "psql '{v}' -c 'select count(*) from evaluations'",
    )
    # MSSQL
    S(
        "mssql_connection_password",
        pw(),
        "Server=SQL-IVR01;Database=IVRReporting;User Id=ivr_report;Password={v};TrustServerCertificate=True",
    )
    S(
        "mssql_connection_password",
        pw(),
        "sqlcmd -S 10.30.1.20 -U sa -P '{v}' -Q \"SELECT TOP 10 * FROM dbo.AgentStates\"",
    )
    S(
        "mssql_connection_password",
        pw(),
        "Cadena de conexión a la base de Vicidial-report: Data Source=rpt-mx;Initial Catalog=CallLog;User ID=reportes;Password={v}",
    )
    # Redis
    S("redis_url_password", f"redis://:{an(24)}@redis-agentdesk.internal:6379/0", "REDIS_URL={v}")
    S(
        "redis_url_password",
        f"rediss://default:{an(32)}@cache-queue-stats.acme-bpo.com:6380",
        "Realtime queue stats cache: {v}",
    )
    S("redis_url_password", an(28), "redis-cli -h 10.20.4.9 -a {v} KEYS 'agent:*:state'")
    # SSH private key
    body = (
        "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZWQyNTUxOQAAACA"
        + b64bytes(260)
    )
    key = (
        "-----BEGIN OPENSSH PRIVATE KEY-----\n"
        + pem_lines(body)
        + "\n-----END OPENSSH PRIVATE KEY-----"
    )
    S("ssh_private_key", key, "Deploy key for the IVR flows repo (ed25519):\n{v}")
    body = "MIIEowIBAAKCAQEA" + b64bytes(1180)
    key = "-----BEGIN RSA PRIVATE KEY-----\n" + pem_lines(body) + "\n-----END RSA PRIVATE KEY-----"
    S("ssh_private_key", key, "SFTP key ng client para sa recording drop:\n{v}")
    body = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQ" + b64bytes(1190)
    key = "-----BEGIN PRIVATE KEY-----\n" + pem_lines(body) + "\n-----END PRIVATE KEY-----"
    S(
        "ssh_private_key",
        key,
        "SBC TLS private key (AudioCodes Mediant, SIP over TLS to carrier):\n{v}",
    )
    # TOTP seed
    S(
        "totp_seed",
        ch(B32, 32),
        "Shared MFA for the client portal admin (Northwind) - TOTP secret {v}, add to the team authenticator",
    )
    S(
        "totp_seed",
        ch(B32, 32),
        "otpauth://totp/Five9:admin@acme-bpo.com?secret={v}&issuer=Five9",
    )
    S("totp_seed", ch(B32, 16), "Semilla 2FA de la cuenta compartida de Genesys: {v}")
    # Recovery codes
    codes = [f"{hx(5)}-{hx(5)}" for _ in range(4)]
    S("recovery_codes", " ".join(codes), "GitHub org owner recovery codes (acme-bpo): {v}")
    codes = [f"{dg(4)} {ch(string.digits, 4)}" for _ in range(3)]
    S("recovery_codes", ", ".join(codes), "Backup codes ng Google admin ng training team: {v}")
    code = "-".join(ch(UPD, 4) for _ in range(4))
    S("recovery_codes", code, "Okta recovery code for the break-glass account: {v}")
    # JWT
    hdr = b64url({"alg": "HS256", "typ": "JWT"})
    pay = b64url(
        {
            "sub": "agent:2041",
            "site": "CEB",
            "roles": ["agent", "tier2"],
            "iat": 1796500000,
            "exp": 1796543200,
        }
    )
    S(
        "jwt_session_token",
        f"{hdr}.{pay}.{ch(URLSAFE, 43)}",
        "Agent desktop session for testing as Maricel: Authorization: Bearer {v}",
    )
    hdr = b64url({"alg": "RS256", "kid": hx(8), "typ": "JWT"})
    pay = b64url(
        {"iss": "https://login.mypurecloud.com", "sub": uid(), "org": uid(), "exp": 1796599999}
    )
    S("jwt_session_token", f"{hdr}.{pay}.{ch(URLSAFE, 86)}", "access_token={v}")
    hdr = b64url({"alg": "HS256", "typ": "JWT"})
    pay = b64url({"user": "sup.mty.03", "perm": "wallboard:admin", "exp": 1796700000})
    S(
        "jwt_session_token",
        f"{hdr}.{pay}.{ch(URLSAFE, 43)}",
        "Token do supervisor que peguei do devtools pra reproduzir o bug: {v}",
    )
    # Datadog
    S("datadog_api_key", hx(32), "DD_API_KEY={v}")
    S("datadog_api_key", hx(32), "Datadog agent on the SBC monitoring boxes uses api_key: {v}")
    S(
        "datadog_api_key",
        hx(32),
        "datadog:\n  apiKey: {v}\n  appKey: {app}\n  site: datadoghq.com",
        app=hx(40),
    )

    # ------------------------------------------------------------------ benign

    B(
        "twilio_account_sid",
        "AC" + hx(32),
        "Northwind Flex account SID is {v}; the auth token lives in Vault, never here.",
    )
    B("twilio_account_sid", "AC" + hx(32), "TWILIO_ACCOUNT_SID={v}")
    B("twilio_account_sid", "AC" + hx(32), "Subaccount para la campaña de cobranza MX: {v}")
    B("twilio_call_sid", "CA" + hx(32), "Customer says call dropped at IVR step 3; CallSid {v}")
    B(
        "twilio_call_sid",
        "CA" + hx(32),
        "2026-12-06T14:02:11Z WARN flex-plugin transfer failed call_sid={v} reason=no_answer",
    )
    B("twilio_call_sid", "CA" + hx(32), "Ligação reclamada na ouvidoria: {v}")
    B("twilio_recording_sid", "RE" + hx(32), "QA pulled recording {v} for the calibration session.")
    B(
        "twilio_recording_sid",
        "RE" + hx(32),
        "GET /2010-04-01/Accounts/{acc}/Recordings/{v}.mp3 -> 200",
        acc="AC" + hx(32),
    )
    B("twilio_recording_sid", "RE" + hx(32), "Grabación para la disputa del cliente: {v}")
    B(
        "phone_number_e164",
        "+63" + "917" + ch(string.digits, 7),
        "Callback number for the escalation customer: {v}",
    )
    B(
        "phone_number_e164",
        "+52" + "55" + ch(string.digits, 8),
        "DID principal cola Cobranza Monterrey: {v}",
    )
    B(
        "phone_number_e164",
        "+55" + "11" + "9" + ch(string.digits, 8),
        "Número do WhatsApp Business do cliente: {v}",
    )
    B(
        "phone_number_e164",
        "+1" + "646555" + ch(string.digits, 4),
        "| Queue | DID |\n|---|---|\n| Billing EN | {v} |",
    )
    B(
        "toll_free_number",
        "1-800-555-" + ch(string.digits, 4),
        "Northwind customer care toll-free: {v} (routes to Genesys flow NW-Main)",
    )
    B(
        "toll_free_number",
        "800 " + ch(string.digits, 3) + " " + ch(string.digits, 4),
        "Línea gratuita Banco Andino Colombia: 01 {v}",
    )
    B(
        "toll_free_number",
        "0800 " + ch(string.digits, 3) + " " + ch(string.digits, 4),
        "SAC Loja Sol: {v}",
    )
    B(
        "agent_extension",
        "ext " + ch("23", 1) + ch(string.digits, 3),
        "Transfer billing disputes to Tier 2 at {v}.",
    )
    B(
        "agent_extension",
        ch("3456", 1) + ch(string.digits, 3),
        "extensions:\n  - number: {v}\n    agent: jdelacruz\n    site: CEB",
    )
    B("agent_extension", ch("78", 1) + ch(string.digits, 3), "Ramal do plantão de supervisão: {v}")
    B("agent_employee_id", "EMP-" + dg(6), "Agent {v} flagged for schedule adherence below 85%")
    B("agent_employee_id", "PH" + dg(7), "Employee no. ni Maricel sa HRIS: {v}")
    B("agent_employee_id", "MX-" + dg(5), "Número de empleado del nuevo TL de Monterrey: {v}")
    B("queue_id_uuid", uid(), "Genesys queue 'NW Billing EN' id {v}")
    B("queue_id_uuid", uid(), "routing:\n  queues:\n    cobranza_temprana: {v}")
    B("queue_id_uuid", uid(), "Fila de retenção no CXone (skill id mapeado): {v}")
    B(
        "oauth_client_id",
        uid(),
        "Genesys OAuth client id (public part) for the WFM sync: {v}; secret is in Vault at secret/cc/genesys/wfm-sync",
    )
    B("oauth_client_id", "0oa" + an(17), "OKTA_CLIENT_ID={v}")
    B("oauth_client_id", uid(), "ID do cliente OAuth do Talkdesk (não é segredo): {v}")
    B(
        "salesforce_record_id",
        "500" + an(15),
        "Case {v} reopened by the customer after the callback.",
    )
    B("salesforce_record_id", "001" + an(15), "Account record for Northwind enterprise: {v}")
    B("salesforce_record_id", "003" + an(15), "Contacto duplicado en Service Cloud: {v}")
    B("salesforce_org_id", "00D" + an(15), "Production org id (Northwind Service Cloud): {v}")
    B("salesforce_org_id", "00D" + an(12), "Sandbox UAT org: {v}")
    B(
        "salesforce_org_id",
        "00D" + an(15),
        "Org ID do Salesforce da Loja Sol pra abrir chamado no suporte: {v}",
    )
    B("zendesk_ticket_ref", "#" + dg(6), "Customer complaint moved to Zendesk {v}")
    B(
        "zendesk_ticket_ref",
        "ticket " + dg(7),
        "Pakicheck yung {v}, paulit-ulit na tumatawag si customer.",
    )
    B("zendesk_ticket_ref", dg(6), "https://acmesupport.zendesk.com/agent/tickets/{v}")
    B("incident_ticket_ref", "INC" + ch(string.digits, 7), "Outage on the Bogota SBC logged as {v}")
    B(
        "incident_ticket_ref",
        "CHG" + ch(string.digits, 7),
        "Trunk password rotation scheduled under {v}, Saturday 02:00 PHT",
    )
    B(
        "incident_ticket_ref",
        "RITM" + ch(string.digits, 7),
        "Pedido de headset novo pro agente: {v}",
    )
    B("jira_key", "CCOPS-" + dg(4), "Fix merged for {v} (wallboard shows negative AHT)")
    B("jira_key", "IVR-" + dg(3), "Branch feature/{v}-spanish-prompts")
    B("jira_key", "WFM-" + dg(4), "Ver {v}: forecast de diciembre subestimado")
    B("dialer_campaign_id", "CMP" + dg(6), "Vicidial campaign {v} paused: list exhausted")
    B("dialer_campaign_id", "camp_" + hx(12), "Five9 outbound campaign id {v} (Renewals Q1)")
    B("dialer_campaign_id", dg(5), "campaign_id={v}&list_id=9001&status=NEW")
    B(
        "connect_contact_id",
        uid(),
        "Amazon Connect ContactId {v} - CTR shows disconnect reason CUSTOMER_DISCONNECT",
    )
    B("connect_contact_id", uid(), '{"ContactId": "{v}", "Channel": "VOICE", "Queue": "Billing"}')
    B("connect_contact_id", uid(), "Contato no Connect que o cliente contestou: {v}")
    acct = dg(12)
    B(
        "amazon_connect_arn",
        f"arn:aws:connect:ap-southeast-1:{acct}:instance/{uid()}",
        "Connect instance ARN (prod): {v}",
    )
    B(
        "amazon_connect_arn",
        f"arn:aws:connect:us-east-1:{dg(12)}:instance/{uid()}/queue/{uid()}",
        "queue_arn: {v}",
    )
    B(
        "amazon_connect_arn",
        f"arn:aws:iam::{dg(12)}:role/ConnectRecordingExport",
        "Role assumed by the export lambda: {v}",
    )
    B("aws_account_id", dg(12), "Recordings live in AWS account {v} (cc-prod)")
    B("aws_account_id", dg(12), "aws sts get-caller-identity -> Account: {v}")
    B("aws_account_id", dg(12), "Cuenta AWS de sandbox para los bots: {v}")
    B("azure_tenant_id", uid(), "Azure AD tenant for acme-bpo.com: {v}")
    B("azure_tenant_id", uid(), "AZURE_TENANT_ID={v}\nAZURE_SUBSCRIPTION_ID={sub}", sub=uid())
    B("azure_tenant_id", uid(), "Tenant do Entra ID do cliente Banco Aurora: {v}")
    B(
        "stripe_publishable_key",
        "pk_live_51" + an(97),
        "Client portal checkout page embeds the publishable key {v} (fine to ship to browsers)",
    )
    B("stripe_publishable_key", "pk_live_" + an(24), "NEXT_PUBLIC_STRIPE_KEY={v}")
    B(
        "stripe_publishable_key",
        "pk_live_51" + an(97),
        "Chave publicável do Stripe no portal de autoatendimento: {v}",
    )
    B(
        "recaptcha_site_key",
        "6L" + ch(URLSAFE, 38),
        "reCAPTCHA site key for the callback request form: {v}",
    )
    B(
        "recaptcha_site_key",
        "6L" + ch(URLSAFE, 38),
        '<div class="g-recaptcha" data-sitekey="{v}"></div>',
    )
    B(
        "recaptcha_site_key",
        "6L" + ch(URLSAFE, 38),
        "Site key del captcha del portal de pagos (pública): {v}",
    )
    B(
        "payment_merchant_id",
        an(16).lower(),
        "Braintree merchant id for the phone-payments desk: {v}",
    )
    B("payment_merchant_id", "MID " + dg(15), "Adquirente Cielo, estabelecimento: {v}")
    B("payment_merchant_id", dg(10), "Authorize.Net gateway ID {v} (support reference only)")
    B("git_commit_sha", hx(40), "Rolled agent desktop back to {v} after the softphone regression")
    B("git_commit_sha", hx(7), "hotfix {v}: fix DTMF masking during card capture")
    B("git_commit_sha", hx(40), "Deploy IVR flows commit {v} a producción el viernes")
    B("sha256_recording_digest", hx(64), "Chain of custody for recording sent to legal: sha256 {v}")
    B("sha256_recording_digest", hx(64), "{v}  20261205_093012_ext2041.wav")
    B("sha256_recording_digest", hx(64), "Hash SHA-256 da gravação entregue ao Procon: {v}")
    B("md5_checksum", hx(32), "MD5 of the nightly CDR dump: {v}")
    B("md5_checksum", hx(32), "md5sum bases_cobranza.csv -> {v}")
    B("md5_checksum", hx(32), 'ETag del objeto en S3: "{v}"')
    B(
        "container_image_digest",
        "sha256:" + hx(64),
        "image: registry.acme-bpo.com/agent-desktop@{v}",
    )
    B("container_image_digest", "sha256:" + hx(64), "Pinned the wallboard image to digest {v}")
    B("container_image_digest", "sha256:" + hx(64), "docker pull ghcr.io/acme-bpo/ivr-tts@{v}")
    B("npm_integrity_hash", "sha512-" + b64bytes(64), '"integrity": "{v}"')
    B(
        "npm_integrity_hash",
        "sha512-" + b64bytes(64),
        "package-lock for @acme/softphone-sdk 3.4.1 integrity {v}",
    )
    B(
        "npm_integrity_hash",
        "sha384-" + b64bytes(48),
        '<script src="https://cdn.acme-bpo.com/chat-widget.js" integrity="{v}" crossorigin="anonymous"></script>',
    )
    B(
        "bcrypt_hash",
        "$2b$12$" + ch(AN + "./", 53),
        "Client portal users table, password_hash column example row: {v}",
    )
    B(
        "bcrypt_hash",
        "$2y$10$" + ch(AN + "./", 53),
        "htpasswd entry for the wallboard: wallboard:{v}",
    )
    B(
        "bcrypt_hash",
        "$2b$12$" + ch(AN + "./", 53),
        "Hash da senha do agente (bcrypt, não reversível): {v}",
    )
    B(
        "ssh_public_key",
        "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + ch(B64, 43),
        "Add to authorized_keys on REC01: {v} jomar@telecom",
    )
    B(
        "ssh_public_key",
        "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQ" + ch(B64, 340),
        "Public key the client needs for the SFTP drop: {v}",
    )
    B(
        "ssh_public_key",
        "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + ch(B64, 43),
        "Chave pública do deploy do repositório de URA: {v}",
    )
    cert = (
        "-----BEGIN CERTIFICATE-----\n"
        + pem_lines("MIIDdzCCAl+gAwIBAgIU" + b64bytes(640))
        + "\n-----END CERTIFICATE-----"
    )
    B("certificate_pem", cert, "Carrier's SIP TLS CA cert to import on the SBC:\n{v}")
    cert = (
        "-----BEGIN CERTIFICATE-----\n"
        + pem_lines("MIIFazCCA1OgAwIBAgIR" + b64bytes(900))
        + "\n-----END CERTIFICATE-----"
    )
    B("certificate_pem", cert, "ca.crt para el portal de clientes:\n{v}")
    cert = (
        "-----BEGIN CERTIFICATE-----\n"
        + pem_lines("MIIDXTCCAkWgAwIBAgIJ" + b64bytes(600))
        + "\n-----END CERTIFICATE-----"
    )
    B("certificate_pem", cert, "sbc:\n  tls_ca: |\n" + "{v}")
    B(
        "tls_fingerprint",
        ":".join(hx(2).upper() for _ in range(32)),
        "SBC cert SHA-256 fingerprint (check before trusting): {v}",
    )
    B(
        "tls_fingerprint",
        "SHA256:" + ch(B64, 43),
        "Host key of sftp.northwind.com: ED25519 key fingerprint is {v}",
    )
    B(
        "tls_fingerprint",
        ":".join(hx(2).upper() for _ in range(20)),
        "Impressão digital SHA1 do certificado da URA: {v}",
    )
    B(
        "pgp_key_fingerprint",
        " ".join(hx(4).upper() for _ in range(10)),
        "Client's PGP public key fingerprint for recording exports: {v}",
    )
    B("pgp_key_fingerprint", hx(40).upper(), "gpg --recv-keys {v}")
    B("pgp_key_fingerprint", "0x" + hx(16).upper(), "Llave pública del Banco Andino (long id): {v}")
    B(
        "mac_address",
        ":".join(hx(2) for _ in range(6)),
        "Yealink on desk 4F-112 MAC {v}, provisioning file y0000000000xx.cfg",
    )
    B("mac_address", "805EC0" + hx(6).upper(), "cfg file name for the new phone: {v}.cfg")
    B(
        "mac_address",
        "-".join(hx(2).upper() for _ in range(6)),
        "MAC ng bagong headset base sa training room: {v}",
    )
    B("device_serial_number", "SN" + ch(UPD, 12), "Replaced Plantronics base {v} under RMA")
    B(
        "device_serial_number",
        "FTX" + dg(4) + ch(UPD, 4),
        "Cisco router on the Cebu MPLS: serial {v}",
    )
    B("device_serial_number", ch(UPD, 10), "Número de série do gateway AudioCodes: {v}")
    B(
        "sbc_ip_address",
        f"10.20.{r.randint(0, 9)}.{r.randint(2, 250)}",
        "Internal SBC leg: {v}:5061 (TLS)",
    )
    B("sbc_ip_address", f"203.0.113.{r.randint(2, 250)}", "Carrier signalling IP to whitelist: {v}")
    B(
        "sbc_ip_address",
        f"198.51.100.{r.randint(2, 250)}",
        "IP do SBC do cliente pra liberar no firewall: {v}",
    )
    B("sip_uri", f"sip:{dg(4)}@pbx.cebu.acme-bpo.local", "Route overflow to {v}")
    B(
        "sip_uri",
        f"sips:+5255{ch(string.digits, 8)}@sip.carrier-mx.net;transport=tls",
        "Destino del desborde: {v}",
    )
    B(
        "sip_uri",
        f"sip:queue-billing@{r.choice(['acme-bpo.pstn.twilio.com', 'acme.sip.twilio.com'])}",
        "Twilio SIP domain target: {v}",
    )
    B(
        "placeholder_value",
        "<TWILIO_AUTH_TOKEN>",
        "Set TWILIO_AUTH_TOKEN={v} in your local .env before running the Flex plugin",
    )
    B("placeholder_value", "changeme-in-vault", "ami:\n  user: wallboard\n  secret: {v}")
    B(
        "placeholder_value",
        "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
        "Zendesk token: {v} (pedir al admin, no lo pongo aquí)",
    )
    B("placeholder_value", "YOUR_GENESYS_CLIENT_SECRET", '"clientSecret": "{v}"')
    B(
        "masked_secret",
        "sk_live_" + "*" * 20 + an(4),
        "Stripe key in the portal settings shows {v}; real one is in Vault",
    )
    B("masked_secret", "********", "Five9 admin password: {v} (ask Marco)")
    B("masked_secret", "xoxb-" + "•" * 12 + an(4), "Token do bot do Slack (mascarado): {v}")
    B(
        "masked_secret",
        "[REDACTED]",
        "2026-12-06 03:11:02 INFO sip-register user=63288801234 password={v} status=200",
    )
    B(
        "env_var_reference",
        "${TWILIO_AUTH_TOKEN}",
        "twilio:\n  account_sid: ${TWILIO_ACCOUNT_SID}\n  auth_token: {v}",
    )
    B("env_var_reference", 'os.environ["GENESYS_CLIENT_SECRET"]', "client_secret = {v}")
    B("env_var_reference", "process.env.ZENDESK_TOKEN", "const token = {v};  // nunca hardcodear")
    B("env_var_reference", "$env:SFTP_PASSWORD", "sftp upload uses {v} set by the scheduled task")
    B("vault_path", "secret/data/contact-centre/twilio/prod", "Twilio creds: vault kv get {v}")
    B(
        "vault_path",
        "kv/bpo/clients/northwind/portal",
        "Shared portal login moved to {v}; don't keep it in notes anymore",
    )
    B(
        "vault_path",
        "arn:aws:secretsmanager:ap-southeast-1:" + dg(12) + ":secret:cc/five9/admin-" + an(6),
        "Senha do Five9 agora fica no Secrets Manager: {v}",
    )
    B(
        "k8s_secret_ref",
        "secretKeyRef:\n      name: deepgram-creds\n      key: api-key",
        "env:\n  - name: DEEPGRAM_API_KEY\n    valueFrom:\n      {v}",
    )
    B(
        "k8s_secret_ref",
        "agent-desktop-jwt-signing",
        "kubectl -n cc-prod get secret {v} -o jsonpath='{.metadata.creationTimestamp}'",
    )
    B("k8s_secret_ref", "sendgrid-api", "envFrom:\n  - secretRef:\n      name: {v}")
    B(
        "password_policy_text",
        "Agent passwords: min 12 chars, rotate every 90 days, no reuse of last 10",
        "Policy (PCI DSS 8.3): {v}. Shared logins are forbidden on the floor.",
    )
    B(
        "password_policy_text",
        "las contraseñas de los agentes deben tener al menos 12 caracteres y cambiarse cada 90 días",
        "Recordatorio de seguridad: {v}.",
    )
    B(
        "password_policy_text",
        "PIN do correio de voz deve ter 6 dígitos e não pode ser sequencial",
        "Regra nova: {v}.",
    )
    B(
        "password_policy_text",
        "bawal isulat ang password sa sticky note o sa monitor",
        "Paalala sa lahat ng TL: {v}.",
    )
    B(
        "revoked_key",
        "SG." + ch(URLSAFE, 22) + "." + ch(URLSAFE, 43),
        "REVOKED 2026-11-30 after the leak on the shared drive, do not use: {v}",
    )
    B(
        "revoked_key",
        "ghp_" + an(36),
        "Old CI token {v} was deleted from GitHub (revoked), replaced by the GitHub App.",
    )
    B(
        "revoked_key",
        hx(32),
        "Twilio auth token {v} foi revogado na rotação de novembro; não funciona mais.",
    )
    B(
        "documented_example_key",
        "AKIAIOSFODNN7EXAMPLE",
        "AWS docs example access key id {v} used in the onboarding slides",
    )
    B(
        "documented_example_key",
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "aws_secret_access_key = {v}  # example from the AWS docs, not ours",
    )
    B(
        "documented_example_key",
        "sk_test_4eC39HqLyjWDarjtT1zdp7dc",
        "Stripe docs sample test key {v} in the README snippet",
    )
    B(
        "test_card_number",
        "4242 4242 4242 4242",
        "For UAT of the payment IVR use test card {v}, any future expiry, any CVC",
    )
    B("test_card_number", "5555555555554444", "Tarjeta de prueba Mastercard para QA del IVR: {v}")
    B("test_card_number", "4111 1111 1111 1111", "Cartão de teste (sandbox) {v}")
    B(
        "masked_card_pan",
        "**** **** **** " + ch(string.digits, 4),
        "Customer disputed charge on card {v}, refund approved",
    )
    B(
        "masked_card_pan",
        "411111******" + ch(string.digits, 4),
        "Log payment-ivr: pan={v} result=APPROVED auth=OK",
    )
    B(
        "masked_card_pan",
        "XXXX-XXXX-XXXX-" + ch(string.digits, 4),
        "Tarjeta terminación {v} bloqueada por el cliente",
    )
    B(
        "build_version",
        f"v{r.randint(3, 6)}.{r.randint(0, 20)}.{r.randint(0, 9)}",
        "Agent desktop {v} released to Cebu pilot group",
    )
    B(
        "build_version",
        f"{r.randint(20, 26)}.{r.randint(1, 12)}.{r.randint(100, 999)}.{r.randint(1000, 9999)}",
        "Genesys Cloud Desktop build {v}",
    )
    B(
        "build_version",
        f"{r.randint(80, 89)}.{r.randint(0, 9)}.{r.randint(0, 99)}",
        "Firmware Yealink T46U {v} na dapat i-push sa lahat",
    )
    B(
        "feature_access_code",
        "*72",
        "To forward your desk phone, dial {v} then the number; *73 to cancel.",
    )
    B("feature_access_code", "*97", "Para escuchar el buzón marca {v} desde tu extensión")
    B("feature_access_code", "*8", "Pickup de grupo: {v}")
    B("ivr_dtmf_path", "1 > 3 > 2", "Billing disputes path in the NW main menu: {v}")
    B("ivr_dtmf_path", "2-1-4", "Menu da URA pra segunda via de boleto: {v}")
    B("ivr_dtmf_path", "9#", "Option {v} goes straight to the operator (hidden option)")
    B(
        "conference_meeting_id",
        "884 " + ch(string.digits, 3) + " " + ch(string.digits, 4),
        "Weekly WFM review: Zoom meeting ID {v}, passcode in the calendar invite",
    )
    B(
        "conference_meeting_id",
        ch(string.digits, 3) + " " + ch(string.digits, 3) + " " + ch(string.digits, 3) + "#",
        "Bridge do cliente: 0800 891 2000, código da sala {v} (sem PIN de host)",
    )
    B(
        "conference_meeting_id",
        "meet.google.com/"
        + ch(string.ascii_lowercase, 3)
        + "-"
        + ch(string.ascii_lowercase, 4)
        + "-"
        + ch(string.ascii_lowercase, 3),
        "Huddle ng TLs 8:45 AM: {v}",
    )
    B("slack_channel_id", "C0" + ch(UPD, 9), "Alerts go to channel {v} (#queue-ops)")
    B("slack_channel_id", "U0" + ch(UPD, 9), "Mention the WFM on-call user {v} in the alert")
    B("slack_channel_id", "T0" + ch(UPD, 9), "Workspace ID do Slack da operação: {v}")
    B("wfm_schedule_id", "SCH-" + dg(5), "Published schedule {v} for week 50, Cebu site")
    B("wfm_schedule_id", "FC-2026W51-" + ch(UPD, 4), "Forecast {v} aprobado por el cliente")
    B("wfm_schedule_id", "MU-" + dg(3), "Management unit {v} (Tier 2 Spanish)")
    B(
        "invoice_number",
        "INV-2026-" + dg(5),
        "Northwind November billing: {v}, 42,118 handled minutes",
    )
    B("invoice_number", "NF-e " + dg(9), "Nota fiscal do cliente Loja Sol: {v}")
    B("invoice_number", "PO " + dg(8), "Orden de compra de headsets: {v}")
    B("recording_filename", f"20261205_093012_ext2041_{'CA' + hx(32)}.wav", "Legal requested {v}")
    B("recording_filename", f"rec/{uid()}/{dg(10)}.opus", "s3://acme-connect-recordings/{v}")
    B(
        "recording_filename",
        f"gravacao_{dg(6)}_{ch(string.digits, 8)}.mp3",
        "Arquivo da ligação do cliente: {v}",
    )
    B(
        "correlation_id",
        uid(),
        "2026-12-06T08:14:55.201Z ERROR agent-desktop softphone register timeout correlationId={v}",
    )
    B("correlation_id", hx(32), "traceparent: 00-{v}-{span}-01", span=hx(16))
    B("correlation_id", uid(), "Genesys support pidió el correlation id: {v}")
    B("ga_measurement_id", "G-" + ch(UPD, 10), "Client portal analytics tag: {v}")
    B(
        "ga_measurement_id",
        "UA-" + dg(8) + "-1",
        "Old Universal Analytics property on the help centre: {v}",
    )
    B("ga_measurement_id", "GTM-" + ch(UPD, 7), "Container do Tag Manager do portal: {v}")
    # ------------------------------------------------------------------ extra rows
    S(
        "twilio_api_key_secret",
        an(32),
        "| Purpose | Key SID | Secret |\n|---|---|---|\n| Flex insights export | {sid} | {v} |",
        sid="SK" + hx(32),
    )
    S(
        "sip_extension_password",
        pw(),
        "Para el softphone de la agente 4410 (home office): usuario 4410, clave SIP {v}",
    )
    S("desk_phone_admin_password", pin(4), "Grandstream GXP2170 nas baias do 2º andar: admin / {v}")
    S("wifi_psk", pw(), "Wi-Fi ng pantry at break room (ACME-GUEST-NOT): {v}")
    S(
        "recording_encryption_key",
        b64bytes(32),
        '{"kms": "local", "recordingKey": "{v}", "cipher": "AES-256-GCM"}',
    )
    S(
        "slack_bot_token",
        f"xoxb-{dg(12)}-{dg(13)}-{an(24)}",
        "Token do bot de escala no Slack (posta as trocas de turno): {v}",
    )
    S(
        "github_token",
        "ghp_" + an(36),
        "Pinasa ni Carlo yung token niya para sa release ng agent desktop: {v}",
    )
    B(
        "twilio_account_sid",
        "AC" + hx(32),
        "twilio api:core:calls:list --account-sid {v} --limit 20",
    )
    B("agent_extension", ch("23", 1) + ch(string.digits, 3), "Extensión del TL de guardia: {v}")
    B("queue_id_uuid", uid(), "GET /api/v2/routing/queues/{v}/members?pageSize=100")
    B("salesforce_record_id", "a0B" + an(15), "Custom object QA_Evaluation__c record {v}")
    B("git_commit_sha", hx(12), "Yung regression sa wrap-up codes nagsimula sa {v}")
    B("sha256_recording_digest", hx(64), "recording_sha256: {v}")
    B(
        "mac_address",
        ":".join(hx(2).upper() for _ in range(6)),
        "DHCP reservation for the wallboard TV in Monterrey: {v} -> 10.40.2.50",
    )
    B(
        "sbc_ip_address",
        f"172.16.{r.randint(0, 31)}.{r.randint(2, 250)}",
        "IP del SBC secundario en Bogotá: {v}",
    )
    B(
        "sip_uri",
        f"sip:+63{ch(string.digits, 10)}@sip.globe-trunk.ph",
        "Overflow ng billing queue papunta sa {v}",
    )
    B(
        "revoked_key",
        "xoxb-" + dg(12) + "-" + dg(13) + "-" + an(24),
        "Revoked Slack bot token (app reinstalled 2026-10-02), kept for the incident report: {v}",
    )
    B(
        "documented_example_key",
        "ACXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX",
        "Twilio docs use {v} as the sample Account SID",
    )
    B(
        "build_version",
        f"{r.randint(1, 3)}.{r.randint(0, 9)}.{r.randint(0, 30)}-rc{r.randint(1, 4)}",
        "Versão do plugin do Flex em homologação: {v}",
    )
    B(
        "feature_access_code",
        "*44",
        "Supervisor silent monitor feature code is {v} + ext (the PIN is separate and not in this doc)",
    )
    B("correlation_id", "req_" + an(14), "Stripe request id for the failed refund: {v}")
    B("jira_key", "CX-" + dg(4), "Tingnan ang {v} para sa bagong disposition codes")
    B(
        "vault_path",
        "op://BPO-Telecom/SIP Trunk Globe/password",
        "SIP trunk secret reference for the agent: {v}",
    )
    B(
        "incident_ticket_ref",
        "PRB" + ch(string.digits, 7),
        "Root cause of the one-way audio problem tracked in {v}",
    )
    B("dialer_campaign_id", "list_id=" + dg(4), "Lista nova de cobrança carregada: {v}")
    B("slack_channel_id", "C0" + ch(UPD, 9), "Canal de alertas de abandono: {v}")
    return rows


def main() -> None:
    rows = corpus()
    out = open(sys.argv[1], "w", encoding="utf-8") if len(sys.argv) > 1 else sys.stdout
    try:
        for row in rows:
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
    finally:
        if out is not sys.stdout:
            out.close()


if __name__ == "__main__":
    main()
