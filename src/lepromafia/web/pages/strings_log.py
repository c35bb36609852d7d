"""Russian texts of the verifiable-game parts of the pages (issue 14)."""

RU_LOG = {
    "Game log signed: {n} events": "Журнал игры подписан: событий — {n}",
    "Save this signed head: after the game, verify.py --known-head proves the log was not "
    "rewritten since.": "Сохраните эту подписанную вершину: после игры verify.py --known-head докажет, "
                        "что журнал с тех пор не переписан.",
    "Verifiable game": "Проверяемая игра",
    "The deal is drawn: the mafia positions come from values committed by the hosts, the players "
    "who wished and the server, revealed only after every commitment was in.":
        "Сделка по жребию: позиции мафии выведены из значений, заранее закреплённых ведущими, "
        "желающими игроками и сервером; значения раскрыты лишь после того, как внесены все обязательства.",
    'The deal is "by hand": the Procurator names the numbers; the verifier checks only the seal.':
        "Сделка «вручную»: номера называет Прокурор; проверка подтверждает только печать.",
    "Every event is committed to a signed log; each Day Post carries its signed head.":
        "Каждое событие закреплено в подписанном журнале; каждая Газета дня несёт его подписанную вершину.",
    "Download the verifiable export": "Скачать выгрузку для проверки",
    "The server key": "Ключ сервера",
}
