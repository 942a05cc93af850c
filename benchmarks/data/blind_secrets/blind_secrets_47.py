"""Blind secret-detection corpus 47: multilingual web and mobile teams.

Brief: multilingual teams write their agent's memory in their own languages (German,
Japanese, Brazilian Portuguese, Simplified Chinese, Korean, Spanish, French, Polish,
Turkish, Vietnamese, Indonesian, Dutch, Italian, Russian, Ukrainian), mixed with English
technical terms. Each row is in one language, spread evenly; credentials and look-alikes
of a web or mobile team (cloud keys, database passwords, tokens, webhooks, payment and
messaging keys; ids, hashes, public keys, placeholders, vault references, talk about
secrets), with each language's own words for password, key, token and secret.

Written blind on 2026-12-07: the author did not read the detector, its tests or any earlier corpus.

Run: python benchmarks/data/blind_secrets/blind_secrets_47.py [out.jsonl]

Kinds (secret): aws_secret_access_key, github_pat_classic, github_pat_fine_grained,
gitlab_pat, stripe_secret_live, stripe_restricted_live, stripe_webhook_secret,
slack_bot_token, slack_webhook_url, discord_webhook_url, twilio_auth_token, sendgrid_api_key,
openai_api_key, anthropic_api_key, gcp_service_account_private_key, postgres_url_password,
mysql_password, mongodb_srv_password, redis_url_password, jwt_signing_secret,
django_secret_key, rails_master_key, session_cookie, bearer_access_jwt, npm_token,
pypi_token, fcm_legacy_server_key, apns_p8_private_key, telegram_bot_token, mailgun_api_key,
shopify_admin_token, square_access_token, paypal_client_secret, azure_storage_account_key,
azure_client_secret, digitalocean_token, heroku_api_key, vercel_token,
supabase_service_role_key, sentry_auth_token, datadog_api_key, cloudflare_api_token,
openssh_private_key, basic_auth_url, env_db_password, smtp_password, admin_panel_password,
totp_seed, aws_session_token, google_refresh_token, google_oauth_client_secret,
facebook_app_secret, algolia_admin_key, mapbox_secret_token, huggingface_token,
android_keystore_password, linear_api_key, notion_integration_token, vonage_api_secret,
resend_api_key, pusher_app_secret, expo_access_token, wifi_office_password,
redis_auth_password.

Kinds (benign): stripe_publishable_live, stripe_publishable_test, firebase_web_api_key,
mapbox_public_token, algolia_search_only_key, ssh_public_key, pgp_fingerprint, git_commit_sha,
sha256_artifact, bcrypt_hash, docker_image_digest, npm_integrity, request_uuid,
stripe_customer_id, stripe_payment_intent_id, aws_arn, slack_channel_id, ga_measurement_id,
google_oauth_client_id, apple_team_id, vault_path_ref, gha_secrets_ref,
secrets_manager_arn, onepassword_ref, k8s_secret_key_ref, env_var_reference,
placeholder_stripe_key, placeholder_api_key, placeholder_password_tag, redacted_github_token,
password_policy_talk, token_lifetime_talk, primary_key_sense, i18n_key, idempotency_key,
csrf_field_talk, vapid_public_key, jwks_kid, rsa_public_key_pem, tls_certificate_pem,
rotation_note_talk, password_form_field, api_key_hash_sha256, csp_nonce_template,
order_number, feature_flag_key, redis_key_name, localstorage_key_name, jwt_io_example,
aws_docs_example_key, hashed_asset_filename, onesignal_app_id, license_ed25519_public_key,
argon2_hash, apple_merchant_id, vercel_project_id, twilio_account_sid, sendgrid_template_id,
keystore_alias_talk, expo_project_id, hex_color_tokens, design_token_sense,
secret_santa_sense, masked_card_last4.
"""

# ruff: noqa: E501
import json
import random
import string
import sys

SEED = 4747

LANGS = ["de", "ja", "pt", "zh", "ko", "es", "fr", "pl", "tr", "vi", "id", "nl", "it", "ru", "uk"]

WORDS = {
    "de": {"pw": "Passwort", "key": "Schlüssel", "token": "Token", "secret": "Geheimnis"},
    "ja": {"pw": "パスワード", "key": "キー", "token": "トークン", "secret": "シークレット"},
    "pt": {"pw": "senha", "key": "chave", "token": "token", "secret": "segredo"},
    "zh": {"pw": "密码", "key": "密钥", "token": "令牌", "secret": "秘钥"},
    "ko": {"pw": "비밀번호", "key": "키", "token": "토큰", "secret": "시크릿"},
    "es": {"pw": "contraseña", "key": "clave", "token": "token", "secret": "secreto"},
    "fr": {"pw": "mot de passe", "key": "clé", "token": "jeton", "secret": "secret"},
    "pl": {"pw": "hasło", "key": "klucz", "token": "token", "secret": "sekret"},
    "tr": {"pw": "şifre", "key": "anahtar", "token": "token", "secret": "gizli anahtar"},
    "vi": {"pw": "mật khẩu", "key": "khóa", "token": "token", "secret": "bí mật"},
    "id": {"pw": "kata sandi", "key": "kunci", "token": "token", "secret": "rahasia"},
    "nl": {"pw": "wachtwoord", "key": "sleutel", "token": "token", "secret": "geheim"},
    "it": {"pw": "password", "key": "chiave", "token": "token", "secret": "segreto"},
    "ru": {"pw": "пароль", "key": "ключ", "token": "токен", "secret": "секрет"},
    "uk": {"pw": "пароль", "key": "ключ", "token": "токен", "secret": "секрет"},
}

# Frames for secret rows: {ctx} English technical context, {w} localized word, {v} value.
SECRET_FRAMES = {
    "de": [
        "Notiz: {ctx} – {w}: {v}\nBitte nicht ins Repo committen.",
        "{ctx}: {w} = „{v}“ (gilt für prod).",
        "{w} für {ctx} gerade erneuert, neuer Wert: {v}",
        "Für das Deployment brauchst du {ctx}:\n{v}\nDanach Terminal schließen.",
    ],
    "ja": [
        "メモ：{ctx} の{w}は {v} です。",
        "{ctx} 用の{w}（本番）→ {v}\n共有しないでください。",
        "{w}をローテーションしました。{ctx}：「{v}」",
        "デプロイ時に必要：{ctx}\n{v}",
    ],
    "pt": [
        "Anotação: {w} do {ctx} → {v}",
        "{ctx} -> {w} de produção: {v} (não commitar, beleza?)",
        "Rotacionei {w} do {ctx} agora há pouco, valor atual: {v}",
        "Pra fazer o deploy precisa do {ctx}:\n{v}",
    ],
    "zh": [
        "备忘：{ctx} 的{w}是 {v}",
        "{ctx}（生产环境）{w}：{v}\n不要提交到仓库。",
        "刚轮换了 {ctx} 的{w}，新的是「{v}」。",
        "部署需要 {ctx}：\n{v}",
    ],
    "ko": [
        "메모: {ctx} {w}는 {v} 입니다.",
        "{ctx} 운영 {w}: {v}\n절대 커밋하지 마세요.",
        "{ctx} {w} 방금 재발급함 → {v}",
        "배포할 때 {ctx} 필요:\n{v}",
    ],
    "es": [
        "Nota: {w} de {ctx} → {v}",
        "{ctx} → {w} de producción: «{v}»",
        "¡Ojo! Rotado hoy ({w}, {ctx}); el valor nuevo es {v}",
        "Para desplegar necesitas {ctx}:\n{v}\n¿Lo guardas tú en el gestor?",
    ],
    "fr": [
        "Note : {w} pour {ctx} → {v}",
        "{ctx} : {w} de prod = « {v} » — ne pas committer !",
        "Régénéré ce matin ({w} {ctx}) : {v}",
        "Pour le déploiement il faut {ctx} :\n{v}",
    ],
    "pl": [
        "Notatka: {w} do {ctx} to {v}",
        "{ctx} (produkcja) – {w}: „{v}”\nNie wrzucać do repo!",
        "Wygenerowałem na nowo {w} dla {ctx}: {v}",
        "Do wdrożenia potrzebny {ctx}:\n{v}",
    ],
    "tr": [
        "Not: {ctx} {w} şu: {v}",
        "{ctx} canlı ortam {w}: {v}\nRepoya commit etmeyin!",
        "{ctx} için {w} yenilendi, yenisi: {v}",
        "Deploy için {ctx} lazım:\n{v}",
    ],
    "vi": [
        "Ghi chú: {w} của {ctx} là {v}",
        "{ctx} (production) – {w}: {v}\nĐừng commit lên repo nhé.",
        "Mình vừa tạo lại {w} cho {ctx}: {v}",
        "Deploy cần {ctx}:\n{v}",
    ],
    "id": [
        "Catatan: {w} untuk {ctx} adalah {v}",
        "{ctx} produksi, {w}-nya: {v}\nJangan di-commit ya.",
        "Barusan generate {w} baru buat {ctx}: {v}",
        "Untuk deploy butuh {ctx}:\n{v}",
    ],
    "nl": [
        "Notitie: {w} voor {ctx} = {v}",
        "{ctx} – productie-{w}: ‘{v}’\nNiet committen!",
        "Net opnieuw aangemaakt ({w}, {ctx}): {v}",
        "Voor de deploy heb je {ctx} nodig:\n{v}",
    ],
    "it": [
        "Nota: {w} di {ctx} → {v}",
        "{ctx} — {w} di produzione: «{v}»\nNon committare!",
        "Ho appena rigenerato {w} di {ctx}, valore nuovo: {v}",
        "Per il deploy serve {ctx}:\n{v}",
    ],
    "ru": [
        "Заметка: {w} для {ctx} — {v}",
        "{ctx}, боевой {w}: «{v}»\nНе коммитить!",
        "Перевыпустил {w} для {ctx}, новый: {v}",
        "Для деплоя нужен {ctx}:\n{v}",
    ],
    "uk": [
        "Нотатка: {w} для {ctx} — {v}",
        "{ctx}, продакшн {w}: «{v}»\nНе комітити!",
        "Перевипустив {w} для {ctx}, новий: {v}",
        "Для деплою потрібен {ctx}:\n{v}",
    ],
}

# Benign qualifiers per category and language.
QUAL = {
    "pub": {
        "de": "öffentlich, darf ins Frontend",
        "ja": "公開用なので問題なし",
        "pt": "é pública, pode ir pro front",
        "zh": "这是公开的，可以放前端",
        "ko": "공개용이라 프론트에 넣어도 됨",
        "es": "es pública, puede ir en el frontend",
        "fr": "c'est public, ça peut aller dans le front",
        "pl": "publiczny, może być we froncie",
        "tr": "herkese açık, frontend'de durabilir",
        "vi": "cái này public, để ở frontend được",
        "id": "ini publik, boleh ditaruh di frontend",
        "nl": "is publiek, mag in de frontend",
        "it": "è pubblica, può stare nel frontend",
        "ru": "публичный, можно во фронтенд",
        "uk": "публічний, можна у фронтенд",
    },
    "example": {
        "de": "nur ein Platzhalter aus der Doku, kein echter Wert",
        "ja": "ドキュメントのサンプル値で、本物ではない",
        "pt": "só um exemplo da documentação, não é valor real",
        "zh": "只是文档里的示例占位符，不是真的",
        "ko": "문서 예시 값일 뿐, 실제 값 아님",
        "es": "solo un ejemplo de la documentación, no es real",
        "fr": "simple exemple de la doc, pas une vraie valeur",
        "pl": "tylko przykład z dokumentacji, nie prawdziwa wartość",
        "tr": "dokümandaki örnek değer, gerçek değil",
        "vi": "chỉ là giá trị mẫu trong docs, không phải thật",
        "id": "cuma contoh dari dokumentasi, bukan nilai asli",
        "nl": "alleen een voorbeeld uit de docs, geen echte waarde",
        "it": "solo un esempio della documentazione, non è reale",
        "ru": "это просто пример из документации, не настоящее значение",
        "uk": "це лише приклад із документації, не справжнє значення",
    },
    "hash": {
        "de": "das ist nur ein Hash, daraus lässt sich nichts zurückrechnen",
        "ja": "ただのハッシュ値です",
        "pt": "é só um hash, não dá pra reverter",
        "zh": "只是哈希值，无法还原",
        "ko": "해시값일 뿐이라 복원 불가",
        "es": "es solo un hash, no se puede revertir",
        "fr": "ce n'est qu'un hash, rien de sensible",
        "pl": "to tylko hash, nic wrażliwego",
        "tr": "sadece hash, geri çevrilemez",
        "vi": "chỉ là hash thôi, không dịch ngược được",
        "id": "cuma hash, tidak bisa dibalik",
        "nl": "is alleen een hash, niets gevoeligs",
        "it": "è solo un hash, niente di sensibile",
        "ru": "это просто хеш, ничего секретного",
        "uk": "це лише хеш, нічого секретного",
    },
    "id": {
        "de": "nur eine ID, kein Geheimnis",
        "ja": "ただのIDで、秘密情報ではない",
        "pt": "é só um ID, não é segredo",
        "zh": "只是一个 ID，不是机密",
        "ko": "그냥 ID라서 비밀 아님",
        "es": "es solo un ID, no es secreto",
        "fr": "c'est juste un identifiant, pas un secret",
        "pl": "to tylko identyfikator, nie sekret",
        "tr": "sadece bir ID, gizli değil",
        "vi": "chỉ là ID, không phải bí mật",
        "id": "cuma ID, bukan rahasia",
        "nl": "gewoon een ID, geen geheim",
        "it": "è solo un ID, non un segreto",
        "ru": "это просто ID, не секрет",
        "uk": "це просто ID, не секрет",
    },
    "vault": {
        "de": "der eigentliche Wert liegt im Vault, hier nur die Referenz",
        "ja": "実際の値は Vault にあり、ここには参照だけ",
        "pt": "o valor real fica no cofre, aqui só a referência",
        "zh": "真实值在 Vault 里，这里只是引用",
        "ko": "실제 값은 Vault에 있고 여기엔 참조만",
        "es": "el valor real está en el vault, aquí solo la referencia",
        "fr": "la vraie valeur est dans le coffre, ici juste la référence",
        "pl": "prawdziwa wartość jest w sejfie, tu tylko odwołanie",
        "tr": "asıl değer kasada, burada sadece referans var",
        "vi": "giá trị thật nằm trong vault, đây chỉ là tham chiếu",
        "id": "nilai aslinya di vault, di sini cuma referensi",
        "nl": "de echte waarde staat in de kluis, hier alleen de verwijzing",
        "it": "il valore vero è nel vault, qui solo il riferimento",
        "ru": "само значение лежит в хранилище, тут только ссылка",
        "uk": "саме значення у сховищі, тут лише посилання",
    },
    "redacted": {
        "de": "Wert ist geschwärzt, nur das Präfix bleibt",
        "ja": "値はマスク済み、プレフィックスのみ",
        "pt": "valor mascarado, só o prefixo ficou",
        "zh": "值已打码，只保留前缀",
        "ko": "값은 마스킹됨, 접두사만 남김",
        "es": "valor enmascarado, solo queda el prefijo",
        "fr": "valeur masquée, seul le préfixe reste",
        "pl": "wartość zamaskowana, został tylko prefiks",
        "tr": "değer maskelendi, sadece ön ek kaldı",
        "vi": "giá trị đã che, chỉ còn tiền tố",
        "id": "nilainya disensor, cuma prefiks yang tersisa",
        "nl": "waarde is gemaskeerd, alleen het prefix staat er nog",
        "it": "valore oscurato, resta solo il prefisso",
        "ru": "значение замаскировано, остался только префикс",
        "uk": "значення замасковане, лишився тільки префікс",
    },
    "talk": {
        "de": "nur Regel/Beschreibung, kein echter Wert drin",
        "ja": "ルールの説明だけで、実際の値は含まれていない",
        "pt": "só a regra, nenhum valor real aqui",
        "zh": "只是规则说明，没有真实的值",
        "ko": "규칙 설명일 뿐, 실제 값 없음",
        "es": "solo la regla, aquí no hay ningún valor real",
        "fr": "juste la règle, aucune vraie valeur ici",
        "pl": "tylko zasada, żadnej prawdziwej wartości",
        "tr": "sadece kural, gerçek bir değer yok",
        "vi": "chỉ là quy tắc, không có giá trị thật",
        "id": "cuma aturannya, tidak ada nilai asli",
        "nl": "alleen de regel, geen echte waarde",
        "it": "solo la regola, nessun valore reale",
        "ru": "только правило, реальных значений нет",
        "uk": "лише правило, справжніх значень немає",
    },
    "other": {
        "de": "hier bedeutet das Wort etwas anderes, nichts Geheimes",
        "ja": "ここでの意味は認証情報ではない",
        "pt": "aqui a palavra tem outro sentido, nada sigiloso",
        "zh": "这里不是凭证的意思",
        "ko": "여기서는 인증 정보라는 뜻이 아님",
        "es": "aquí la palabra tiene otro sentido, nada confidencial",
        "fr": "ici le mot a un autre sens, rien de confidentiel",
        "pl": "tu to słowo znaczy coś innego, nic poufnego",
        "tr": "burada kelime başka anlamda, gizli bir şey yok",
        "vi": "ở đây từ này mang nghĩa khác, không nhạy cảm",
        "id": "di sini artinya lain, bukan kredensial",
        "nl": "hier betekent het woord iets anders, niets geheims",
        "it": "qui la parola ha un altro senso, niente di riservato",
        "ru": "здесь слово в другом смысле, ничего секретного",
        "uk": "тут слово в іншому значенні, нічого секретного",
    },
}

BENIGN_FRAMES = [
    "{ctx}: {v}\n({q})",
    "{q} — {ctx} = {v}",
    "{ctx}\n{v}\n→ {q}.",
    "[{w}] {ctx} {v} / {q}",
]

A = string.ascii_letters + string.digits
HEX = "0123456789abcdef"
B64 = A + "+/"
URL = A + "-_"
B32 = string.ascii_uppercase + "234567"


def corpus() -> list[dict]:
    rng = random.Random(SEED)

    def r(alpha: str, n: int) -> str:
        return "".join(rng.choice(alpha) for _ in range(n))

    def pw() -> str:
        return (
            rng.choice(
                [
                    "Sommer",
                    "Kobe",
                    "Lua",
                    "Panda",
                    "Hana",
                    "Luna",
                    "Wawel",
                    "Kartal",
                    "Saigon",
                    "Dunia",
                ]
            )
            + r(string.digits, 3)
            + rng.choice("!*._~-")
            + r(A, 5)
        )

    def jwt(payload: str) -> str:
        return "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9." + payload + r(URL, 30) + "." + r(URL, 43)

    def uuid() -> str:
        return f"{r(HEX, 8)}-{r(HEX, 4)}-4{r(HEX, 3)}-{rng.choice('89ab')}{r(HEX, 3)}-{r(HEX, 12)}"

    # (kind, word, ctx, value_fn, wrap_fn or None)
    secrets = [
        (
            "aws_secret_access_key",
            "key",
            "AWS_SECRET_ACCESS_KEY (IAM user ci-deploy)",
            lambda: r(B64, 40),
            None,
        ),
        ("github_pat_classic", "token", "GitHub PAT (repo scope)", lambda: "ghp_" + r(A, 36), None),
        (
            "github_pat_fine_grained",
            "token",
            "GitHub fine-grained PAT",
            lambda: "github_pat_" + r(A, 22) + "_" + r(A, 59),
            None,
        ),
        (
            "gitlab_pat",
            "token",
            "GitLab personal access token",
            lambda: "glpat-" + r(URL, 20),
            None,
        ),
        (
            "stripe_secret_live",
            "key",
            "Stripe secret key (live)",
            lambda: "sk_live_" + r(A, 24),
            None,
        ),
        (
            "stripe_restricted_live",
            "key",
            "Stripe restricted key",
            lambda: "rk_live_" + r(A, 24),
            None,
        ),
        (
            "stripe_webhook_secret",
            "secret",
            "Stripe webhook signing",
            lambda: "whsec_" + r(A, 32),
            None,
        ),
        (
            "slack_bot_token",
            "token",
            "Slack bot (xoxb)",
            lambda: f"xoxb-{r(string.digits, 11)}-{r(string.digits, 13)}-{r(A, 24)}",
            None,
        ),
        (
            "slack_webhook_url",
            "secret",
            "Slack incoming webhook #alerts",
            lambda: (
                f"https://hooks.slack.com/services/T{r(string.ascii_uppercase + string.digits, 8)}/B{r(string.ascii_uppercase + string.digits, 10)}/{r(A, 24)}"
            ),
            None,
        ),
        (
            "discord_webhook_url",
            "secret",
            "Discord webhook (deploy-bot)",
            lambda: f"https://discord.com/api/webhooks/{r(string.digits, 19)}/{r(URL, 68)}",
            None,
        ),
        (
            "twilio_auth_token",
            "token",
            "Twilio Auth Token",
            lambda: r(HEX, 32),
            lambda v: f"TWILIO_AUTH_TOKEN={v}",
        ),
        (
            "sendgrid_api_key",
            "key",
            "SendGrid API",
            lambda: "SG." + r(URL, 22) + "." + r(URL, 43),
            None,
        ),
        ("openai_api_key", "key", "OpenAI API", lambda: "sk-proj-" + r(URL, 48), None),
        (
            "anthropic_api_key",
            "key",
            "Anthropic API",
            lambda: "sk-ant-api03-" + r(URL, 93) + "AA",
            None,
        ),
        (
            "gcp_service_account_private_key",
            "key",
            "GCP service account (firebase-adminsdk) private_key",
            lambda: "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC" + r(B64, 64),
            lambda v: f'"private_key": "-----BEGIN PRIVATE KEY-----\\n{v}\\n..."',
        ),
        (
            "postgres_url_password",
            "pw",
            "Postgres prod (DATABASE_URL)",
            pw,
            lambda v: f"postgres://app_user:{v}@db-prod.internal:5432/shop",
        ),
        ("mysql_password", "pw", "MySQL root @ staging", pw, None),
        (
            "mongodb_srv_password",
            "pw",
            "MongoDB Atlas",
            lambda: r(A, 16),
            lambda v: f"mongodb+srv://api:{v}@cluster0.ab12c.mongodb.net/app",
        ),
        (
            "redis_url_password",
            "pw",
            "Redis cache",
            lambda: r(A, 24),
            lambda v: f"REDIS_URL=redis://default:{v}@redis-prod:6379/0",
        ),
        ("jwt_signing_secret", "secret", "JWT_SECRET (HS256)", lambda: r(HEX, 64), None),
        (
            "django_secret_key",
            "key",
            "Django SECRET_KEY",
            lambda: r(string.ascii_lowercase + string.digits + "!@#$%^&*(-_=+)", 50),
            None,
        ),
        ("rails_master_key", "key", "Rails config/master.key", lambda: r(HEX, 32), None),
        (
            "session_cookie",
            "token",
            "admin session cookie",
            lambda: r(string.ascii_lowercase + string.digits, 32),
            lambda v: f"Cookie: sessionid={v}",
        ),
        (
            "bearer_access_jwt",
            "token",
            "access token (prod API, user admin)",
            lambda: jwt("eyJzdWIiOiJhZG1pbiIsInJvbGUiOiJhZG1pbi"),
            lambda v: f"Authorization: Bearer {v}",
        ),
        (
            "npm_token",
            "token",
            "npm publish",
            lambda: "npm_" + r(A, 36),
            lambda v: f"//registry.npmjs.org/:_authToken={v}",
        ),
        ("pypi_token", "token", "PyPI upload", lambda: "pypi-AgEIcHlwaS5vcmc" + r(URL, 60), None),
        (
            "fcm_legacy_server_key",
            "key",
            "FCM legacy server key",
            lambda: "AAAA" + r(URL, 7) + ":APA91b" + r(URL, 134),
            None,
        ),
        (
            "apns_p8_private_key",
            "key",
            "APNs AuthKey .p8",
            lambda: "MIGTAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBHkwdwIBAQQg" + r(B64, 40),
            lambda v: f"-----BEGIN PRIVATE KEY-----\n{v}\n-----END PRIVATE KEY-----",
        ),
        (
            "telegram_bot_token",
            "token",
            "Telegram bot @shop_notify_bot",
            lambda: r(string.digits, 10) + ":AA" + r(URL, 33),
            None,
        ),
        ("mailgun_api_key", "key", "Mailgun", lambda: "key-" + r(HEX, 32), None),
        ("shopify_admin_token", "token", "Shopify Admin API", lambda: "shpat_" + r(HEX, 32), None),
        (
            "square_access_token",
            "token",
            "Square production access token",
            lambda: "EAAA" + r(URL, 60),
            None,
        ),
        (
            "paypal_client_secret",
            "secret",
            "PayPal REST client secret (live)",
            lambda: r(URL, 80),
            None,
        ),
        (
            "azure_storage_account_key",
            "key",
            "Azure Storage",
            lambda: r(B64, 86) + "==",
            lambda v: (
                f"DefaultEndpointsProtocol=https;AccountName=mediaprod;AccountKey={v};EndpointSuffix=core.windows.net"
            ),
        ),
        (
            "azure_client_secret",
            "secret",
            "Azure AD app client secret",
            lambda: r(A, 3) + "8Q~" + r(URL + ".~", 34),
            None,
        ),
        ("digitalocean_token", "token", "DigitalOcean", lambda: "dop_v1_" + r(HEX, 64), None),
        ("heroku_api_key", "key", "HEROKU_API_KEY", uuid, lambda v: f"export HEROKU_API_KEY={v}"),
        (
            "vercel_token",
            "token",
            "Vercel CLI (VERCEL_TOKEN)",
            lambda: r(A, 24),
            lambda v: f"VERCEL_TOKEN={v}",
        ),
        (
            "supabase_service_role_key",
            "key",
            "Supabase service_role",
            lambda: jwt("eyJpc3MiOiJzdXBhYmFzZSIsInJvbGUiOiJzZXJ2aWNlX3JvbGUi"),
            None,
        ),
        (
            "sentry_auth_token",
            "token",
            "Sentry auth (release upload)",
            lambda: "sntryu_" + r(HEX, 64),
            None,
        ),
        (
            "datadog_api_key",
            "key",
            "Datadog DD_API_KEY",
            lambda: r(HEX, 32),
            lambda v: f"DD_API_KEY={v}",
        ),
        (
            "cloudflare_api_token",
            "token",
            "Cloudflare API (DNS edit)",
            lambda: r(URL, 40),
            lambda v: f"CF_API_TOKEN={v}",
        ),
        (
            "openssh_private_key",
            "key",
            "SSH deploy key (prod bastion)",
            lambda: (
                "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW"
                + r(B64, 60)
            ),
            lambda v: (
                f"-----BEGIN OPENSSH PRIVATE KEY-----\n{v}\n-----END OPENSSH PRIVATE KEY-----"
            ),
        ),
        (
            "basic_auth_url",
            "pw",
            "staging basic auth",
            pw,
            lambda v: f"https://qa:{v}@staging.shop-app.io/",
        ),
        ("env_db_password", "pw", ".env.production", pw, lambda v: f"DB_PASSWORD={v}"),
        ("smtp_password", "pw", "SMTP (smtp.office365.com, noreply@)", pw, None),
        ("admin_panel_password", "pw", "/admin login user=superadmin", pw, None),
        (
            "totp_seed",
            "secret",
            "2FA TOTP seed of the shared ops account",
            lambda: r(B32, 32),
            None,
        ),
        (
            "aws_session_token",
            "token",
            "AWS_SESSION_TOKEN (STS, 12h)",
            lambda: "FwoGZXIvYXdzE" + r(B64, 150),
            None,
        ),
        (
            "google_refresh_token",
            "token",
            "Google OAuth refresh token (Drive sync)",
            lambda: "1//0" + r(URL, 99),
            None,
        ),
        (
            "google_oauth_client_secret",
            "secret",
            "Google OAuth client secret",
            lambda: "GOCSPX-" + r(URL, 28),
            None,
        ),
        (
            "facebook_app_secret",
            "secret",
            "Facebook App Secret",
            lambda: r(HEX, 32),
            lambda v: f"FB_APP_SECRET={v}",
        ),
        (
            "algolia_admin_key",
            "key",
            "Algolia Admin API key",
            lambda: r(HEX, 32),
            lambda v: f"ALGOLIA_ADMIN_KEY={v}",
        ),
        (
            "mapbox_secret_token",
            "token",
            "Mapbox secret token (downloads:read)",
            lambda: "sk.eyJ1IjoibWFwc3RlYW0iLCJhIjoi" + r(URL, 20) + "In0." + r(URL, 22),
            None,
        ),
        ("huggingface_token", "token", "Hugging Face (write)", lambda: "hf_" + r(A, 34), None),
        (
            "android_keystore_password",
            "pw",
            "Android release keystore",
            pw,
            lambda v: f"storePassword={v}\nkeyAlias=release",
        ),
        ("linear_api_key", "key", "Linear API", lambda: "lin_api_" + r(A, 40), None),
        (
            "notion_integration_token",
            "token",
            "Notion integration",
            lambda: "ntn_" + r(A, 46),
            None,
        ),
        (
            "vonage_api_secret",
            "secret",
            "Vonage SMS API secret",
            lambda: r(A, 16),
            lambda v: f"VONAGE_API_SECRET={v}",
        ),
        ("resend_api_key", "key", "Resend", lambda: "re_" + r(A, 8) + "_" + r(A, 24), None),
        (
            "pusher_app_secret",
            "secret",
            "Pusher Channels app secret",
            lambda: r(HEX, 20),
            lambda v: f"PUSHER_SECRET={v}",
        ),
        (
            "expo_access_token",
            "token",
            "Expo EAS (EXPO_TOKEN)",
            lambda: r(URL, 40),
            lambda v: f"EXPO_TOKEN={v}",
        ),
        ("wifi_office_password", "pw", "office Wi-Fi “Team-5G”", pw, None),
        (
            "redis_auth_password",
            "pw",
            "Redis requirepass (sessions)",
            lambda: r(A, 32),
            lambda v: f"requirepass {v}",
        ),
    ]

    benign = [
        (
            "stripe_publishable_live",
            "key",
            "pub",
            "Stripe publishable key",
            lambda: "pk_live_" + r(A, 24),
            None,
        ),
        (
            "stripe_publishable_test",
            "key",
            "pub",
            "Stripe.js test mode",
            lambda: "pk_test_" + r(A, 24),
            None,
        ),
        (
            "firebase_web_api_key",
            "key",
            "pub",
            "firebaseConfig.apiKey (web app, restricted by domain)",
            lambda: "AIza" + r(URL, 35),
            None,
        ),
        (
            "mapbox_public_token",
            "token",
            "pub",
            "Mapbox public token (pk.)",
            lambda: "pk.eyJ1IjoibWFwc3RlYW0iLCJhIjoi" + r(URL, 20) + "In0." + r(URL, 22),
            None,
        ),
        (
            "algolia_search_only_key",
            "key",
            "pub",
            "Algolia search-only API key",
            lambda: r(HEX, 32),
            None,
        ),
        (
            "ssh_public_key",
            "key",
            "pub",
            "deploy key .pub (authorized_keys)",
            lambda: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + r(B64, 43),
            lambda v: f"{v} ci@build",
        ),
        (
            "pgp_fingerprint",
            "key",
            "pub",
            "release signing PGP fingerprint",
            lambda: " ".join(r("0123456789ABCDEF", 4) for _ in range(10)),
            None,
        ),
        ("git_commit_sha", "token", "hash", "hotfix commit", lambda: r(HEX, 40), None),
        ("sha256_artifact", "key", "hash", "SHA-256 of app-release.aab", lambda: r(HEX, 64), None),
        (
            "bcrypt_hash",
            "pw",
            "hash",
            "users.password_hash (bcrypt, cost 12)",
            lambda: "$2b$12$" + r(A + "./", 53),
            None,
        ),
        (
            "docker_image_digest",
            "token",
            "hash",
            "api image digest",
            lambda: "sha256:" + r(HEX, 64),
            None,
        ),
        (
            "npm_integrity",
            "key",
            "hash",
            "package-lock integrity",
            lambda: "sha512-" + r(B64, 86) + "==",
            None,
        ),
        ("request_uuid", "token", "id", "X-Request-Id of the failed call", uuid, None),
        ("stripe_customer_id", "key", "id", "Stripe customer", lambda: "cus_" + r(A, 14), None),
        ("stripe_payment_intent_id", "key", "id", "PaymentIntent", lambda: "pi_3" + r(A, 23), None),
        (
            "aws_arn",
            "key",
            "id",
            "IAM role ARN",
            lambda: (
                f"arn:aws:iam::{r(string.digits, 12)}:role/ci-deploy-{r(string.ascii_lowercase, 5)}"
            ),
            None,
        ),
        (
            "slack_channel_id",
            "token",
            "id",
            "Slack channel #release",
            lambda: "C0" + r(string.ascii_uppercase + string.digits, 9),
            None,
        ),
        (
            "ga_measurement_id",
            "key",
            "pub",
            "GA4 measurement id",
            lambda: "G-" + r(string.ascii_uppercase + string.digits, 10),
            None,
        ),
        (
            "google_oauth_client_id",
            "key",
            "pub",
            "Google Sign-In client ID (iOS)",
            lambda: (
                r(string.digits, 12)
                + "-"
                + r(string.ascii_lowercase + string.digits, 32)
                + ".apps.googleusercontent.com"
            ),
            None,
        ),
        (
            "apple_team_id",
            "key",
            "id",
            "Apple Team ID / bundle com.shopapp.ios",
            lambda: r(string.ascii_uppercase + string.digits, 10),
            None,
        ),
        (
            "vault_path_ref",
            "secret",
            "vault",
            "DB password",
            lambda: f"vault:secret/data/prod/{r(string.ascii_lowercase, 6)}#password",
            None,
        ),
        (
            "gha_secrets_ref",
            "secret",
            "vault",
            "GitHub Actions step env",
            lambda: (
                "${{ secrets."
                + rng.choice(["STRIPE_SECRET_KEY", "NPM_TOKEN", "DB_PASSWORD", "SENTRY_AUTH_TOKEN"])
                + " }}"
            ),
            None,
        ),
        (
            "secrets_manager_arn",
            "secret",
            "vault",
            "AWS Secrets Manager",
            lambda: (
                f"arn:aws:secretsmanager:eu-central-1:{r(string.digits, 12)}:secret:prod/api/db-{r(A, 6)}"
            ),
            None,
        ),
        (
            "onepassword_ref",
            "pw",
            "vault",
            "1Password CLI",
            lambda: (
                f"op://Engineering/{rng.choice(['Postgres Prod', 'SMTP', 'Twilio', 'Firebase Admin'])}/password"
            ),
            None,
        ),
        (
            "k8s_secret_key_ref",
            "secret",
            "vault",
            "Kubernetes env",
            lambda: (
                f"valueFrom: {{secretKeyRef: {{name: api-{r(string.ascii_lowercase, 4)}, key: JWT_SECRET}}}}"
            ),
            None,
        ),
        (
            "env_var_reference",
            "pw",
            "vault",
            "docker-compose",
            lambda: (
                "POSTGRES_PASSWORD=${"
                + rng.choice(["DB_PASS", "POSTGRES_PASSWORD", "PG_PASS"])
                + "}"
            ),
            None,
        ),
        (
            "placeholder_stripe_key",
            "key",
            "example",
            ".env.example",
            lambda: "sk_live_" + "X" * 24,
            None,
        ),
        (
            "placeholder_api_key",
            "key",
            "example",
            "README setup",
            lambda: rng.choice(
                [
                    "OPENAI_API_KEY=your-api-key-here",
                    "API_KEY=<your_key>",
                    "SENDGRID_API_KEY=SG.xxxxxxxx",
                ]
            ),
            None,
        ),
        (
            "placeholder_password_tag",
            "pw",
            "example",
            "docs connection string",
            lambda: "postgres://user:<PASSWORD>@localhost:5432/" + r(string.ascii_lowercase, 5),
            None,
        ),
        (
            "redacted_github_token",
            "token",
            "redacted",
            "GitHub token in the CI log",
            lambda: "ghp_" + "*" * 36,
            None,
        ),
        (
            "password_policy_talk",
            "pw",
            "talk",
            "password policy: min 12 chars, bcrypt cost 12, lock after 5 tries",
            lambda: "",
            None,
        ),
        (
            "token_lifetime_talk",
            "token",
            "talk",
            "access token TTL 15 min, refresh token 30 days, rotate on use",
            lambda: "",
            None,
        ),
        (
            "primary_key_sense",
            "key",
            "other",
            "orders table primary key",
            lambda: (
                "PRIMARY KEY (order_id, " + rng.choice(["tenant_id", "shop_id", "region"]) + ")"
            ),
            None,
        ),
        (
            "i18n_key",
            "key",
            "other",
            "i18n translation key",
            lambda: rng.choice(
                [
                    "auth.password.forgot_link",
                    "auth.token.expired_title",
                    "settings.api_key.copy_button",
                ]
            ),
            None,
        ),
        ("idempotency_key", "key", "id", "Idempotency-Key header sent to Stripe", uuid, None),
        (
            "csrf_field_talk",
            "token",
            "talk",
            "CSRF: form must include hidden field",
            lambda: '<input type="hidden" name="csrf_token" value="{{ csrf_token() }}">',
            None,
        ),
        (
            "vapid_public_key",
            "key",
            "pub",
            "Web Push VAPID applicationServerKey (public)",
            lambda: "B" + r(URL, 86),
            None,
        ),
        ("jwks_kid", "key", "pub", "JWKS kid of the current signing key", lambda: r(URL, 43), None),
        (
            "rsa_public_key_pem",
            "key",
            "pub",
            "webhook verification public key",
            lambda: "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA" + r(B64, 64),
            lambda v: f"-----BEGIN PUBLIC KEY-----\n{v}\n-----END PUBLIC KEY-----",
        ),
        (
            "tls_certificate_pem",
            "key",
            "pub",
            "api.shop-app.io cert (fullchain)",
            lambda: "MIIFazCCA1OgAwIBAgIUY" + r(B64, 60),
            lambda v: f"-----BEGIN CERTIFICATE-----\n{v}\n-----END CERTIFICATE-----",
        ),
        (
            "rotation_note_talk",
            "secret",
            "vault",
            "Stripe key rotated after the leak; new value only in AWS Secrets Manager (prod/stripe)",
            lambda: "",
            None,
        ),
        (
            "password_form_field",
            "pw",
            "other",
            "signup form fields",
            lambda: rng.choice(
                ["password, password_confirmation", "newPassword / currentPassword", "pass1, pass2"]
            ),
            None,
        ),
        (
            "api_key_hash_sha256",
            "key",
            "hash",
            "api_keys.key_hash (we store only SHA-256)",
            lambda: r(HEX, 64),
            None,
        ),
        (
            "csp_nonce_template",
            "token",
            "other",
            "CSP header template",
            lambda: "script-src 'self' 'nonce-{{NONCE}}'",
            None,
        ),
        (
            "order_number",
            "token",
            "id",
            "customer complaint, order",
            lambda: "ORD-" + r(string.ascii_uppercase + string.digits, 10),
            None,
        ),
        (
            "feature_flag_key",
            "key",
            "other",
            "LaunchDarkly flag key",
            lambda: rng.choice(["new-checkout-flow", "ff_apple_pay_v2", "secret-menu-beta"]),
            None,
        ),
        (
            "redis_key_name",
            "key",
            "other",
            "Redis key pattern for sessions",
            lambda: "sess:{user_id}:" + rng.choice(["refresh", "device", "otp_attempts"]),
            None,
        ),
        (
            "localstorage_key_name",
            "token",
            "other",
            "localStorage key name",
            lambda: rng.choice(["auth_token", "accessToken", "sb-auth-token"]),
            None,
        ),
        (
            "jwt_io_example",
            "token",
            "example",
            "JWT from jwt.io (John Doe)",
            lambda: (
                "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fMwpMeJf36POk6yJV_adQssw5c"
            ),
            None,
        ),
        (
            "aws_docs_example_key",
            "key",
            "example",
            "AWS docs sample credentials",
            lambda: "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            None,
        ),
        (
            "hashed_asset_filename",
            "token",
            "hash",
            "bundle file after build",
            lambda: f"main.{r(HEX, 8)}.js",
            None,
        ),
        ("onesignal_app_id", "key", "pub", "OneSignal App ID (in the app bundle)", uuid, None),
        (
            "license_ed25519_public_key",
            "key",
            "pub",
            "license verification public key (ed25519, base64)",
            lambda: r(B64, 43) + "=",
            None,
        ),
        (
            "argon2_hash",
            "pw",
            "hash",
            "argon2id hash from the users table",
            lambda: "$argon2id$v=19$m=65536,t=3,p=4$" + r(B64, 22) + "$" + r(B64, 43),
            None,
        ),
        (
            "apple_merchant_id",
            "key",
            "id",
            "Apple Pay merchant identifier",
            lambda: "merchant.io.shopapp." + rng.choice(["prod", "eu", "checkout"]),
            None,
        ),
        ("vercel_project_id", "key", "id", "Vercel projectId", lambda: "prj_" + r(A, 28), None),
        (
            "twilio_account_sid",
            "token",
            "id",
            "Twilio Account SID",
            lambda: "AC" + r(HEX, 32),
            None,
        ),
        (
            "sendgrid_template_id",
            "key",
            "id",
            "SendGrid dynamic template",
            lambda: "d-" + r(HEX, 32),
            None,
        ),
        (
            "keystore_alias_talk",
            "pw",
            "vault",
            "keystore alias 'release'; storePassword is read from ANDROID_KEYSTORE_PASSWORD in CI",
            lambda: "",
            None,
        ),
        ("expo_project_id", "key", "id", "EAS projectId in app.json", uuid, None),
        (
            "hex_color_tokens",
            "token",
            "other",
            "design system color tokens",
            lambda: f"--color-primary: #{r(HEX, 6)}; --color-accent: #{r(HEX, 6)}",
            None,
        ),
        (
            "design_token_sense",
            "token",
            "other",
            "Figma design token",
            lambda: rng.choice(["spacing.md = 16px", "radius.card = 12px", "font.body = Inter 15"]),
            None,
        ),
        (
            "secret_santa_sense",
            "secret",
            "other",
            "Secret Santa draw for the team, budget 20 EUR, Friday",
            lambda: "",
            None,
        ),
        (
            "masked_card_last4",
            "key",
            "redacted",
            "test card in the report",
            lambda: "**** **** **** " + r(string.digits, 4),
            None,
        ),
    ]

    rows: list[dict] = []
    li = 0
    for i, (kind, word, ctx, vfn, wrap) in enumerate(secrets):
        for j in range(3):
            lang = LANGS[li % len(LANGS)]
            li += 1
            v = vfn()
            shown = wrap(v) if wrap else v
            frame = SECRET_FRAMES[lang][(i + j) % 4]
            text = frame.format(ctx=ctx, w=WORDS[lang][word], v=shown)
            rows.append({"label": "secret", "kind": kind, "text": text, "value": v})
    li = 7
    for i, (kind, word, cat, ctx, vfn, wrap) in enumerate(benign):
        for j in range(3):
            lang = LANGS[li % len(LANGS)]
            li += 1
            v = vfn()
            shown = wrap(v) if wrap else v
            q = QUAL[cat][lang]
            if v == "":
                text = f"{ctx} ({WORDS[lang][word]}) — {q}."
                if j == 1:
                    text = f"{q}:\n{ctx}"
                elif j == 2:
                    text = f"[{WORDS[lang][word]}] {ctx}\n→ {q}"
            else:
                frame = BENIGN_FRAMES[(i + j) % 4]
                text = frame.format(ctx=ctx, v=shown, q=q, w=WORDS[lang][word])
            rows.append({"label": "benign", "kind": kind, "text": text, "value": v})

    seen = set()
    for row in rows:
        assert row["value"] in row["text"], row
        assert row["text"] not in seen, row["text"]
        seen.add(row["text"])
    return rows


def main() -> None:
    rows = corpus()
    out = "\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n"
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w", encoding="utf-8") as fh:
            fh.write(out)
    else:
        sys.stdout.write(out)


if __name__ == "__main__":
    main()
